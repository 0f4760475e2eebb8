import type { ServerAdapterPlugin } from '@whatwg-node/server';
import { appError, isAppError, renderError } from '../errors.js';
import { readJsonBody } from './body.js';
import { REST_BASE } from './rest-routes.js';
import { matchApiRoute } from './routes.js';
import type { ServerContext } from './server-context.js';
import { surfaceOf } from './surface.js';

/**
 * What GraphQL never sees: unknown routes (404), other methods (405 with Allow), and a POST's body,
 * which must be JSON (415), at most 64 KiB (413) and well-formed (400). It is read here, once, for both
 * surfaces.
 */
export function useTransportGuards(): ServerAdapterPlugin<ServerContext> {
  return {
    async onRequest({ request, url, serverContext, endResponse }) {
      const route = matchApiRoute(url.pathname);
      const surface = surfaceOf(url);
      try {
        if (!route) throw appError('NOT_FOUND', `No route ${url.pathname}; see ${REST_BASE}/openapi.json`);
        const restRoute = route.methods.get(request.method);
        if (restRoute === undefined) {
          const allow = [...route.methods.keys()].join(', ');
          const error = appError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url.pathname}; use ${allow}`);
          endResponse(renderError(error, surface, { Allow: allow }));
          return;
        }
        serverContext.surface = surface;
        if (restRoute) serverContext.restRoute = restRoute;
        if (request.method === 'POST') serverContext.body = await readJsonBody(request);
      } catch (error) {
        if (!isAppError(error)) throw error;
        // The rest of a refused body is never read: the connection cannot carry another request.
        const unread = error.extensions.code === 'PAYLOAD_TOO_LARGE' || error.extensions.code === 'UNSUPPORTED_MEDIA_TYPE';
        endResponse(renderError(error, surface, unread ? { Connection: 'close' } : {}));
      }
    },
  };
}
