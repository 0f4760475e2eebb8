import type { ExecutionArgs, ExecutionResult, GraphQLSchema } from 'graphql';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { YogaServer, type Plugin, type YogaLogger } from 'graphql-yoga';
import type { OperationLimits } from '../config.js';
import { log } from '../log.js';
import type { ServerContext } from '../pipeline/context.js';
import type { Step } from '../pipeline/pipeline.js';
import type { Endpoint, SurfaceRoutes } from '../pipeline/routing.js';
import { graphqlErrors, useErrorResults } from './errors.js';
import { asGet, useHeadWithoutStream } from './head.js';
import { useSocketResults } from './socket-results.js';
import { useEventIds } from './sse.js';
import { directExecution, type DirectObserver, type OperationObserver } from './direct.js';
import { createJitExecutor } from './execute.js';
import { useExplainedFixedFields } from './fixed-fields-rule.js';
import { budgetExceeded, countNodes, startBudget } from './node-budget.js';
import { callChecker } from './call.js';
import { loadManifest } from './manifest.js';
import { createOperationChecker, prepareDocument, type OperationChecker } from './operation-checker.js';
import type { GraphQLParams, GraphQLRequest } from './params.js';
import { documentResolver, type DocumentMode } from './persisted.js';
import type { RegisteredDocuments } from './registered-documents.js';
import { useGraphQLOperation } from './use-operation.js';
import { asFetchRequest } from '../pipeline/node-request.js';
import { useWarnings } from './warnings.js';

export const GRAPHQL_PATH = '/graphql';

/** Each operation yoga is handed, with its checked request: a batch's operations are told apart by their parameters. */
const checkedOf = new WeakMap<GraphQLParams, GraphQLRequest>();

/**
 * The operation step has already read the parameters, found each document and parsed it within the
 * operation limits (it decided the request's cost): yoga runs exactly those operations, one or a batch,
 * without reading or parsing again.
 */
function useCheckedRequest(): Plugin<object, ServerContext> {
  return {
    onRequestParse({ serverContext, setRequestParser }) {
      const checked = serverContext.graphql;
      if (!checked) return;
      for (const operation of checked.operations) checkedOf.set(operation.params, operation);
      setRequestParser(() => checked.params as never);
    },
    onParse({ context, params, setParsedDocument }) {
      const sent = (context as { params?: GraphQLParams }).params;
      const checked = sent && checkedOf.get(sent);
      if (checked && params.source === checked.params.query) setParsedDocument(checked.document);
    },
  };
}

/** Queries and mutations a client sends again run compiled (graphql-jit); see execute.ts. */
function useJit(jit: ReturnType<typeof createJitExecutor>): Plugin {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn(((args: ExecutionArgs) => jit(args, executeFn as never)) as never);
    },
  };
}

/** What runs for every operation executed, on either lane (the operation metrics); a subscription is counted as it starts. */
function useExecuted(executed: OperationObserver): Plugin {
  return {
    onExecute({ args }) {
      const done = executed(args);
      return { onExecuteDone({ result }) { done(result as ExecutionResult | AsyncIterable<unknown>); } };
    },
    onSubscribe({ args }) {
      executed(args)(undefined);
    },
  };
}

/**
 * Each event of a subscription is an execution of its own (graphql-js's): counted against the node limit
 * from zero, and answered `data: null` with the limit's error when it passes it, as a query would be.
 */
function useSubscriptionNodeBudget(maxNodes: number): Plugin {
  return {
    onSubscribe({ args }) {
      startBudget(args.contextValue, maxNodes);
      return {
        onSubscribeResult: () => ({
          onNext({ args: { contextValue }, setResult }) {
            const exceeded = budgetExceeded(contextValue);
            if (exceeded) setResult({ data: null, errors: [exceeded] });
            startBudget(contextValue, maxNodes);
          },
        }),
      };
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
  /** Its path (/graphql), GET (and so HEAD) and POST, answering its refusals in the GraphQL error shape. */
  readonly routes: SurfaceRoutes;
  /** The endpoints of its path: which surface a request's operation is for. */
  readonly endpoints: ReadonlySet<Endpoint>;
  /** Parses, limits and costs an operation before it is counted: runs right after the request checks. */
  readonly operationStep: Step;
  /** Reads the trusted documents' manifest again (SIGHUP); false when there is none or it is bad (the last is kept). */
  reloadDocuments(): boolean;
}

/** Persisted documents: the trusted manifest's file, the automatic persisted queries, and who may send what. */
export interface DocumentOptions {
  readonly manifestFile: string | undefined;
  readonly registered: RegisteredDocuments;
  readonly modeOf: (serverContext: ServerContext) => DocumentMode;
}

/** What the service adds to every operation: tracing, when on. */
export interface GraphQLObservers {
  /** Hears every operation executed, and its result (the operation metrics). */
  readonly executed?: OperationObserver;
  /** Yoga plugins of their own (traces of validation and execution), for yoga's lane. */
  readonly plugins?: readonly Plugin[];
  /** What those plugins do, for the direct lane (direct.ts): without it, any plugin sends every request to yoga. */
  readonly direct?: DirectObserver;
  /** Wraps the operation checks (tracing); by default they are left as they are. */
  readonly observeChecks?: (check: OperationChecker) => OperationChecker;
}

/**
 * Served at `path`: /graphql, or a schema of its own beside it (the federation subgraph's) under the same steps.
 * Yoga's server without the server adapter createYoga wraps it in: the path is already routed, the
 * request already counted and checked, so the adapter's plugin chain (its own routing by URLPattern,
 * health check, context copy) would only repeat work. Yoga's handler parses, executes and renders,
 * except for the common single query, which runs directly on yoga's parts (direct.ts).
 */
export function createGraphQL(
  schema: GraphQLSchema, context: (serverContext: ServerContext) => object, limits: OperationLimits, documents: DocumentOptions,
  { executed = () => () => undefined, plugins = [], direct: observeDirect, observeChecks = (check) => check }: GraphQLObservers = {},
  path = GRAPHQL_PATH,
): GraphQLSurface {
  // A bad manifest stops startup here: a service that cannot run its clients' documents should not start.
  const manifest = loadManifest(documents.manifestFile, (text) => prepareDocument(text, limits, schema));
  countNodes(schema);
  const jit = createJitExecutor(limits.maxNodes);
  const yoga = new YogaServer<ServerContext, object>({
    schema,
    graphqlEndpoint: path,
    // Served by the public endpoints, ahead of authentication; see app.ts.
    graphiql: false,
    landingPage: false,
    multipart: false,
    // The operation step holds a batch to the same limit first, with the service's own error.
    batching: { limit: limits.maxBatch },
    cors: false,
    maxRequestBodySize: false,
    logging: yogaLogger,
    // useErrorResults codes and masks every error, where the request (and so its id, for the log) is known.
    maskedErrors: false,
    context: (initial) => context(initial),
    plugins: [useDeferStream(), useCheckedRequest(), useExplainedFixedFields(), useErrorResults(), useEventIds(), useWarnings(), useJit(jit),
      useSubscriptionNodeBudget(limits.maxNodes), useHeadWithoutStream(), useExecuted(executed), ...plugins, useSocketResults()],
  });
  // Plugins whose work the direct lane is not told how to do send every request to yoga.
  const direct = plugins.length === 0 || observeDirect
    ? directExecution({ enveloped: yoga.getEnveloped({}), context, jit, executed, observe: observeDirect })
    : () => undefined;
  // Yoga runs on the Fetch API's Request: a request that came on node:http gets one here, and only here.
  const handle = (request: Request, serverContext: ServerContext) =>
    direct(request, serverContext) ?? yoga.handle(asFetchRequest(request, yoga.fetchAPI), serverContext as never);
  // The router gives HEAD the GET's endpoint; the pipeline drops the body of its answer.
  const get: Endpoint = {
    handle: (request, serverContext) => handle(request.method === 'HEAD' ? asGet(request, yoga.fetchAPI.Request) : request, serverContext),
  };
  const post: Endpoint = { body: ['application/json'], handle };
  const endpoints = new Set([get, post]);
  return {
    routes: { prefix: path, surface: graphqlErrors, paths: { [path]: { GET: get, POST: post } } },
    endpoints,
    operationStep: useGraphQLOperation(
      endpoints,
      callChecker(limits, documentResolver(manifest, documents.registered), observeChecks(createOperationChecker(limits, schema))),
      documents.modeOf,
    ),
    reloadDocuments: () => manifest.reload(),
  };
}
