import type { ServerContext } from '../pipeline/context.js';
import { classify } from '../pipeline/error-response.js';
import type { Step } from '../pipeline/pipeline.js';
import type { Endpoint } from '../pipeline/routing.js';
import type { CallChecker, CheckedCall } from './call.js';
import { graphqlParams, type GraphQLCall } from './params.js';
import type { DocumentMode } from './persisted.js';

declare module '../pipeline/context.js' {
  interface ServerContext {
    /** A GraphQL request, each of its operations' documents parsed and checked against the operation limits. */
    graphql?: GraphQLCall;
    /** Automatic persisted queries this request registers once it may run. */
    registrations?: CheckedCall['registrations'];
  }
}

/**
 * A GraphQL request's parameters and documents, before it is counted: found (by text, id or hash), parsed
 * once, held to the operation limits, and costed (one point per root field). A problem is kept as the
 * request's rejection, like the request checks' (this step runs right after them).
 */
export function useGraphQLOperation(
  endpoints: ReadonlySet<Endpoint>,
  checkCall: CallChecker,
  /** Which documents the caller may send (its key's setting, or the service's). */
  modeOf: (serverContext: ServerContext) => DocumentMode,
): Step {
  return {
    onRequest({ request, url, serverContext }) {
      const { endpoint } = serverContext;
      if (!endpoint || !endpoints.has(endpoint) || serverContext.rejection) return undefined;
      const failed = (error: unknown) => { serverContext.rejection = classify(error, serverContext.requestId); };
      const keep = ({ call, registrations }: CheckedCall) => {
        serverContext.graphql = call;
        serverContext.cost = call.cost;
        if (registrations.length > 0) serverContext.registrations = registrations;
      };
      try {
        const checked = checkCall(graphqlParams(request.method, url, serverContext.body), modeOf(serverContext));
        // Waited for only when a document is looked up in Redis: a step with nothing pending costs no promise.
        if (checked instanceof Promise) return checked.then(keep, failed);
        keep(checked);
      } catch (error) {
        failed(error);
      }
      return undefined;
    },
  };
}
