import type { ServerAdapterPlugin } from '@whatwg-node/server';
import { appError, renderError } from '../errors.js';

export interface PublicEndpoint {
  /** Answers a GET; undefined lets it go on to the authenticated pipeline. */
  get(request: Request): Response | Promise<Response> | undefined;
  /** The path also serves authenticated requests (GraphiQL lives on /graphql), so other methods go on too. */
  shared?: boolean;
}

/** Health, readiness, the OpenAPI document and the GraphiQL page: answered before any key is asked for. */
export function usePublicEndpoints(endpoints: Record<string, PublicEndpoint>): ServerAdapterPlugin {
  return {
    async onRequest({ request, url, endResponse }) {
      const endpoint = Object.hasOwn(endpoints, url.pathname) ? endpoints[url.pathname] : undefined;
      if (!endpoint) return;
      if (request.method === 'GET') {
        const response = await endpoint.get(request);
        if (response) endResponse(response);
      } else if (!endpoint.shared) {
        const error = appError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url.pathname}; use GET`);
        endResponse(renderError(error, 'rest', { Allow: 'GET' }));
      }
    },
  };
}
