import type { ServerAdapterPlugin } from '@whatwg-node/server';
import { appError, isAppError, renderError, type Surface } from '../errors.js';
import { readJsonBody } from './body.js';
import { GRAPHQL_PATH } from './graphql.js';
import { REST_BASE, REST_ROUTES, routeKey } from './rest-routes.js';
import type { ServerContext } from './server-context.js';
import { surfaceOf } from './surface.js';

interface RouteEntry {
  readonly pattern: RegExp;
  readonly surface: Surface;
  /** Method → REST route key (`METHOD /path`), or '' for GraphQL. */
  readonly methods: ReadonlyMap<string, string>;
}

/** Every authenticated route: the REST routes SOFA builds, and /graphql. */
function routeTable(): RouteEntry[] {
  const byPath = new Map<string, Map<string, string>>();
  for (const route of Object.values(REST_ROUTES)) {
    const methods = byPath.get(route.path) ?? new Map<string, string>();
    byPath.set(route.path, methods.set(route.method, routeKey(route)));
  }
  const rest = [...byPath].map(([path, methods]): RouteEntry => ({
    pattern: new RegExp(`^${REST_BASE}${path.replace(/:\w+/g, '[^/]+')}$`),
    surface: 'rest',
    methods,
  }));
  return [...rest, { pattern: new RegExp(`^${GRAPHQL_PATH}$`), surface: 'graphql', methods: new Map([['GET', ''], ['POST', '']]) }];
}

/**
 * What GraphQL never sees: unknown routes (404), other methods (405 with Allow), and a POST's body,
 * which must be JSON (415), at most 64 KiB (413) and well-formed (400). It is read here, once, for both
 * surfaces.
 */
export function useTransportGuards(): ServerAdapterPlugin<ServerContext> {
  const routes = routeTable();
  return {
    async onRequest({ request, url, serverContext, endResponse }) {
      const route = routes.find((r) => r.pattern.test(url.pathname));
      const surface: Surface = route?.surface ?? surfaceOf(url);
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
