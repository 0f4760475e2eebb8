import type { Step } from './pipeline.js';
import { appError, renderError, toAppError, type AppError } from '../errors.js';
import { readJsonBody } from './body.js';
import { graphqlParams, type OperationChecker } from '../graphql/params.js';
import { FREE_ROOT_FIELDS } from '../graphql/operation-limits.js';
import { BODY_TYPES, REST_BASE, REST_ROUTES, routeKey, type RestRoute } from '../rest/routes.js';
import type { Route } from './routing.js';

/** REST routes of free fields (the quota look-up): they cost no point. */
const FREE_ROUTES = new Set(Object.entries(REST_ROUTES)
  .filter(([coordinate]) => FREE_ROOT_FIELDS.has(coordinate.split('.')[1]!)).map(([, route]) => routeKey(route)));

/** A public page's request (GraphiQL shares /graphql with the API): it has no body to read. */
const isPageRequest = (route: Route, request: Request) => (route.page ? route.page.takes?.(request) ?? true : false);

/**
 * What a keyed request asks for, before it is counted: the route and method (404, 405 with Allow), a
 * POST's or PATCH's body (JSON, 415; at most 64 KiB, 413; well-formed, 400), read once for both surfaces, and a
 * GraphQL operation's document, parsed and held to the operation limits, which sets its cost. A problem
 * is kept as the request's rejection, answered by useRejection once the request is counted.
 */
export function useRequestChecks(checkOperation: OperationChecker): Step {
  return {
    onRequest({ request, url, serverContext }) {
      const { route, caller } = serverContext;
      // Without a key the answer is 401, whatever the body says.
      if (caller?.kind !== 'key' || isPageRequest(route, request)) return undefined;
      const reject = (error: unknown) => {
        const rejected = toAppError(error, serverContext.requestId);
        serverContext.rejection = { error: rejected, headers: headersFor(rejected, route) };
      };
      const checkOperationOf = () => {
        if (route.surface !== 'graphql') return;
        serverContext.graphql = checkOperation(graphqlParams(request.method, url, serverContext.body));
        serverContext.cost = serverContext.graphql.cost;
      };
      try {
        if (!route.api) throw appError('NOT_FOUND', `No route ${url.pathname}; see ${REST_BASE}/openapi.json`);
        const restRoute = route.api.methods.get(request.method);
        if (restRoute === undefined) {
          throw appError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url.pathname}; use ${allowed(route)}`);
        }
        if (restRoute) {
          serverContext.restRoute = restRoute;
          if (FREE_ROUTES.has(restRoute)) serverContext.cost = 0;
        }
        // Only a body is waited for: a GET is checked without a promise.
        const types = BODY_TYPES[request.method as RestRoute['method']];
        if (!types) return checkOperationOf();
        return readJsonBody(request, types).then((body) => {
          serverContext.body = body;
          checkOperationOf();
        }).catch(reject);
      } catch (error) {
        return reject(error);
      }
    },
  };
}

const allowed = (route: Route) => [...route.api!.methods.keys()].join(', ');

function headersFor(error: AppError, route: Route): Record<string, string> {
  switch (error.extensions.code) {
    case 'METHOD_NOT_ALLOWED': return { Allow: allowed(route) };
    // The rest of a refused body is never read: the connection cannot carry another request.
    case 'PAYLOAD_TOO_LARGE': case 'UNSUPPORTED_MEDIA_TYPE': return { Connection: 'close' };
    default: return {};
  }
}

/** Answers the request's rejection, now that it has been counted and its key checked. */
export function useRejection(): Step {
  return {
    onRequest({ serverContext: { rejection, route }, endResponse }) {
      if (rejection) endResponse(renderError(rejection.error, route.surface, rejection.headers));
    },
  };
}
