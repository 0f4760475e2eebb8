import type { ExecutionArgs, ExecutionResult, GraphQLSchema } from 'graphql';
import { processRegularResult, YogaServer, type Plugin, type YogaLogger } from 'graphql-yoga';
import { mostSevere, toAppError } from '../errors.js';
import { log } from '../log.js';
import { createJitExecutor } from './execute.js';
import type { ServerContext } from '../pipeline/context.js';

export const GRAPHQL_PATH = '/graphql';

/**
 * The request checks have already read the parameters and parsed the document within the operation
 * limits (it decided the request's cost): yoga runs exactly that, without reading or parsing again.
 */
function useCheckedRequest(): Plugin<object, ServerContext> {
  return {
    onRequestParse({ serverContext, setRequestParser }) {
      const checked = serverContext.graphql;
      if (checked) setRequestParser(() => checked.params as never);
    },
    onParse({ context, params, setParsedDocument }) {
      const checked = (context as Partial<ServerContext>).graphql;
      if (checked && params.source === checked.params.query) setParsedDocument(checked.document);
    },
  };
}

/** Queries and mutations a client sends again run compiled (graphql-jit); see execute.ts. */
function useJit(): Plugin {
  const jit = createJitExecutor();
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn(((args: ExecutionArgs) => jit(args, executeFn as never)) as never);
    },
  };
}

/**
 * Codes on every error (graphql-js's own syntax and validation errors never pass through masking), and
 * an HTTP status that agrees with the body: a result without data is an error response, with the status
 * of its most severe error. A result with data is a 200, its field errors carrying their own codes, as
 * GraphQL-over-HTTP requires. A client whose Accept names nothing we produce still gets JSON.
 */
function useErrorResults(): Plugin {
  return {
    onResultProcess({ serverContext, result, setResult, resultProcessor, setResultProcessor }) {
      if (!resultProcessor) setResultProcessor(processRegularResult, 'application/json');
      if (Array.isArray(result) || !('errors' in result) || !result.errors?.length) return;
      const { requestId } = serverContext as Partial<ServerContext>;
      const errors = result.errors.map((error) => toAppError(error, requestId));
      const failed = result.data == null;
      setResult({
        ...(result as ExecutionResult),
        errors,
        ...(failed ? { extensions: { ...result.extensions, http: { status: mostSevere(errors).extensions.status } } } : {}),
      });
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

export interface GraphQLSurface {
  handle(request: Request, serverContext: ServerContext): Promise<Response> | Response;
}

/**
 * Yoga's server without the server adapter createYoga wraps it in: the path is already routed, the
 * request already counted and checked, so the adapter's plugin chain (its own routing by URLPattern,
 * health check, context copy) would only repeat work. Yoga's handler parses, executes and renders.
 */
export function createGraphQL(schema: GraphQLSchema, context: (serverContext: ServerContext) => object, plugins: Plugin[] = []): GraphQLSurface {
  const yoga = new YogaServer<ServerContext, object>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    // Served by the public endpoints, ahead of authentication; see app.ts.
    graphiql: false,
    landingPage: false,
    multipart: false,
    batching: false,
    cors: false,
    maxRequestBodySize: false,
    logging: yogaLogger,
    // useErrorResults codes and masks every error, where the request (and so its id, for the log) is known.
    maskedErrors: false,
    context: (initial) => context(initial),
    plugins: [useCheckedRequest(), useErrorResults(), useJit(), ...plugins],
  });
  return { handle: (request, serverContext) => yoga.handle(request, serverContext as never) };
}
