import { appError } from '../errors.js';
import type { Step } from './pipeline.js';

const READ_METHODS = new Set(['GET', 'HEAD']);

/** Answers the route's probe or page, whichever `kind` this step serves, before any key is asked for. */
export function usePublicEndpoints(kind: 'probe' | 'page'): Step {
  return {
    onRequest({ request, serverContext, endResponse }) {
      const endpoint = serverContext.route[kind];
      if (!endpoint || (endpoint.takes && !endpoint.takes(request))) return undefined;
      if (!READ_METHODS.has(request.method)) {
        throw appError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${serverContext.route.label}; use GET`, { headers: { Allow: serverContext.route.allow! } });
      }
      // Load balancers probe with HEAD: the pipeline answers it as the GET, without the body.
      return Promise.resolve(endpoint.get(request)).then(endResponse);
    },
  };
}

/** GraphiQL's share of /graphql: a browser asking for a page. */
export function takesBrowserPage(request: Request): boolean {
  return READ_METHODS.has(request.method) && (request.headers.get('accept') ?? '').includes('text/html');
}
