import { execute, OperationTypeNode, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { processRegularResult, type YogaServer } from 'graphql-yoga';
import type { ServerContext } from '../pipeline/context.js';
import { Response } from '../pipeline/response.js';
import { codedResult } from './errors.js';
import type { createJitExecutor } from './execute.js';
import { asksForIncrementalDelivery } from './incremental.js';
import { acceptsSingleAnswers, responseMediaType } from './media-type.js';
import { withWarnings } from './warnings.js';

type Enveloped = ReturnType<YogaServer<ServerContext, object>['getEnveloped']>;

declare module '../pipeline/context.js' {
  interface ServerContext {
    /** Set by the direct lane: its answer had no errors (one with errors carries its request's id). */
    answeredWithoutErrors?: boolean;
  }
}

/** yoga's result processors build their answer with this: ours, written with one writeHead and one end. */
const plainFetch = { Response } as unknown as Parameters<typeof processRegularResult>[1];

export interface DirectOptions {
  /** yoga's engine, taken once: its schema (with @defer and @stream) and its validation, rules and all. */
  readonly enveloped: Enveloped;
  readonly context: (serverContext: ServerContext) => object;
  readonly jit: ReturnType<typeof createJitExecutor>;
  /** What yoga's onExecute hooks do for every operation (the operation metrics). */
  readonly executed: OperationObserver;
  /** What yoga's tracing plugin does on yoga's lane: the execution in a span, the validation as one. */
  readonly observe?: DirectObserver;
}

/** Hears each operation as it starts; what it returns hears its result (or a stream of them). */
export type OperationObserver = (args: ExecutionArgs) => (result: ExecutionResult | AsyncIterable<unknown> | undefined) => void;

export interface DirectObserver {
  readonly execute: <E extends (args: ExecutionArgs) => unknown>(execute: E) => E;
  /** A valid document's validation the lane remembered; one it runs is yoga's validate, which yoga's plugins observe. */
  remembered(): void;
}

/**
 * The common GraphQL request answered without yoga's request machinery: one query (or a POSTed
 * mutation), its document already found, parsed and checked by the operation step, valid, with no
 * @defer or @stream, from a client that takes a single JSON answer over HTTP. It runs what yoga would
 * run for it, in the same order and with the same parts: the context built as yoga extends it, the
 * operation counted, the compiled query, the warnings, the errors coded, and yoga's own result processor
 * (status, media type, body) writing into the service's plain response. Anything else (a batch, a
 * subscription, a GET's mutation, an event stream or multipart answer, a WebSocket's operation, an
 * invalid document) is yoga's, as before: this returns undefined.
 *
 * Yoga wraps each of these steps in its plugin chain, a Fetch Request and a streamed Response; for a
 * small query that machinery cost as much as the query.
 */
export function directExecution({ enveloped, context, jit, executed, observe }: DirectOptions) {
  const schema: GraphQLSchema = enveloped.schema;
  const valid = new WeakMap<DocumentNode, boolean>();
  const isValid = (document: DocumentNode) => {
    const found = valid.get(document);
    if (found === undefined) {
      const now = enveloped.validate(schema, document).length === 0;
      valid.set(document, now);
      return now;
    }
    if (found) observe?.remembered();
    return found;
  };
  const run = (args: ExecutionArgs) => jit(args, execute) as Promise<ExecutionResult> | ExecutionResult;
  const runObserved = observe ? observe.execute(run) : run;

  return function direct(request: Request, serverContext: ServerContext): Promise<Response> | Response | undefined {
    const call = serverContext.graphql;
    if (!call || call.batch || serverContext.socketResult) return undefined;
    const [operation] = call.operations;
    if (!operation || operation.kind === OperationTypeNode.SUBSCRIPTION) return undefined;
    if (request.method !== 'POST' && !(request.method === 'GET' && operation.kind === OperationTypeNode.QUERY)) return undefined;
    const accept = request.headers.get('accept');
    if (!acceptsSingleAnswers(accept) || asksForIncrementalDelivery(operation.document) || !isValid(operation.document)) return undefined;

    const { params, document } = operation;
    // As yoga's handleParams and its context factory: the request, its parameters, then the resolvers' context.
    Object.assign(serverContext, { request, params });
    Object.assign(serverContext, context(serverContext));
    const args: ExecutionArgs = {
      schema, document, contextValue: serverContext, variableValues: params.variables, operationName: params.operationName,
    };
    const answer = (result: ExecutionResult) => {
      serverContext.answeredWithoutErrors = !result.errors?.length;
      return answerOf(result);
    };
    const answerOf = (result: ExecutionResult) => processRegularResult(
      codedResult(withWarnings(result, serverContext.warnings), serverContext.requestId), plainFetch, responseMediaType(accept),
    ) as Response;
    const done = executed(args);
    const result = runObserved(args);
    if (!(result instanceof Promise)) {
      done(result);
      return answer(result);
    }
    return result.then((settled) => {
      done(settled);
      return answer(settled);
    });
  };
}
