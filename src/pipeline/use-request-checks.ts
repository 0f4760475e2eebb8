import { appError } from '../errors.js';
import { readJsonBody } from './body.js';
import { classify } from './error-response.js';
import type { ServerContext } from './context.js';
import type { Step } from './pipeline.js';
import type { Route } from './routing.js';

/**
 * The longest If-None-Match a GET may send, declared in the OpenAPI document from here. Our ETags are 29
 * characters (a quoted SHA-1 in base64url): room for thirty of them, where a browser sends one. The field
 * is split and compared per tag, so its length is work.
 */
export const IF_NONE_MATCH_MAX_LENGTH = 1_024;

/** A public page's request (GraphiQL shares /graphql with the API): it has no body to read. */
const isPageRequest = (route: Route, request: Request) => (route.page ? route.page.takes?.(request) ?? true : false);

/**
 * What a keyed request asks for, before it is counted: the route and method (404, 405 with Allow; a HEAD
 * is its GET), a GET's If-None-Match (at most IF_NONE_MATCH_MAX_LENGTH, 400), and a POST's or PATCH's
 * body (JSON, 415; at most 64 KiB, 413; well-formed and at most MAX_NESTING deep, 400), read once for
 * both surfaces.
 * A problem is kept as the request's rejection, answered by useRejection once the request is counted.
 * Steps after this one check what the surface makes of the request (a GraphQL operation's document).
 */
export function useRequestChecks({ when, documentation }: {
  /** Whether the request is checked at all: one without a key is answered 401, whatever its body says. */
  readonly when: (serverContext: ServerContext) => boolean;
  /** Where the API is described, for a 404 to point at. */
  readonly documentation: string;
}): Step {
  return {
    onRequest({ request, url, serverContext }) {
      const { route } = serverContext;
      if (!when(serverContext) || isPageRequest(route, request)) return undefined;
      const reject = (error: unknown) => { serverContext.rejection = classify(error, serverContext.requestId); };
      if (!route.methods) return reject(appError('NOT_FOUND', `No route ${url.pathname}; see ${documentation}`));
      const endpoint = route.methods.get(request.method);
      if (!endpoint) {
        return reject(appError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url.pathname}; use ${route.allow}`, {
          headers: { Allow: route.allow! },
        }));
      }
      serverContext.endpoint = endpoint;
      if (endpoint.free) serverContext.cost = 0;
      // Only a read's is looked at (cache/validators.ts); elsewhere it is ignored, whatever its length.
      const validator = request.method === 'GET' || request.method === 'HEAD' ? request.headers.get('if-none-match') : null;
      if (validator !== null && validator.length > IF_NONE_MATCH_MAX_LENGTH) {
        return reject(appError('BAD_REQUEST', `If-None-Match must be at most ${IF_NONE_MATCH_MAX_LENGTH} characters: send the ETags of the answers you hold`));
      }
      // Only a body is waited for: a GET is checked without a promise.
      if (!endpoint.body) return undefined;
      return readJsonBody(request, endpoint.body, serverContext.req).then((body) => { serverContext.body = body; }, reject);
    },
  };
}

/** Answers the request's rejection, now that it has been counted and its key checked. */
export function useRejection(): Step {
  return {
    onRequest({ serverContext: { rejection } }) {
      if (rejection) throw rejection;
    },
  };
}
