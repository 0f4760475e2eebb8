import { classify } from '../pipeline/error-response.js';
import type { Step } from '../pipeline/pipeline.js';
import type { Endpoint } from '../pipeline/routing.js';
import { graphqlParams, type GraphQLRequest, type OperationChecker } from './params.js';

declare module '../pipeline/context.js' {
  interface ServerContext {
    /** A GraphQL request, its document parsed and checked against the operation limits. */
    graphql?: GraphQLRequest;
  }
}

/**
 * A GraphQL request's parameters and document, before it is counted: parsed once, held to the operation
 * limits, and costed (one point per root field). A problem is kept as the request's rejection, like the
 * request checks' (this step runs right after them).
 */
export function useGraphQLOperation(endpoints: ReadonlySet<Endpoint>, checkOperation: OperationChecker): Step {
  return {
    onRequest({ request, url, serverContext }) {
      const { endpoint } = serverContext;
      if (!endpoint || !endpoints.has(endpoint) || serverContext.rejection) return;
      try {
        serverContext.graphql = checkOperation(graphqlParams(request.method, url, serverContext.body));
        serverContext.cost = serverContext.graphql.cost;
      } catch (error) {
        serverContext.rejection = classify(error, serverContext.requestId);
      }
    },
  };
}

