import type { ExecutionResult, GraphQLSchema } from 'graphql';
import { createYoga, type Plugin, type YogaLogger } from 'graphql-yoga';
import { toAppError } from '../errors.js';
import { log } from '../log.js';
import type { ServerContext } from './server-context.js';

export const GRAPHQL_PATH = '/graphql';

/** Codes on every error, including graphql-js's own syntax and validation errors, which never pass through masking. */
function useErrorCodes(): Plugin {
  return {
    onExecutionResult({ result, setResult }) {
      if (!result || Array.isArray(result) || !('errors' in result) || !result.errors) return;
      setResult({ ...(result as ExecutionResult), errors: result.errors.map(toAppError) });
    },
  };
}

/** The transport guard has already read and parsed the body within its limits: yoga reuses it. */
function useParsedBody(): Plugin<object, ServerContext> {
  return {
    onRequestParse({ serverContext, setRequestParser }) {
      if (serverContext.body !== undefined) setRequestParser(() => serverContext.body as never);
    },
  };
}

/** Yoga logs client errors it masks at error level; ours are logged once, where they are classified. */
const yogaLogger: YogaLogger = {
  debug: (...args) => log.debug({ yoga: args }, 'yoga'),
  info: (...args) => log.info({ yoga: args }, 'yoga'),
  warn: (...args) => log.warn({ yoga: args }, 'yoga'),
  error: (...args) => log.debug({ yoga: args }, 'yoga error'),
};

export function createGraphQL(schema: GraphQLSchema, context: (serverContext: ServerContext) => object, plugins: Plugin[] = []) {
  return createYoga<ServerContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    // Served by the public endpoints, ahead of authentication; see app.ts.
    graphiql: false,
    landingPage: false,
    multipart: false,
    cors: false,
    maxRequestBodySize: false,
    logging: yogaLogger,
    maskedErrors: { maskError: (error) => toAppError(error) },
    context: (initial) => context(initial),
    plugins: [useParsedBody(), useErrorCodes(), ...plugins],
  });
}
