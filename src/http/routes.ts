import type { Surface } from '../errors.js';
import { GRAPHQL_PATH } from './graphql.js';
import { REST_BASE, REST_ROUTES, routeKey } from './rest-routes.js';

export interface ApiRoute {
  /** The path as a template: `/v1/pets/:petId`. */
  readonly template: string;
  readonly pattern: RegExp;
  readonly surface: Surface;
  /** Method → REST route key (`METHOD /path`), or '' for GraphQL. */
  readonly methods: ReadonlyMap<string, string>;
}

/** Every authenticated route: the REST routes SOFA builds, and /graphql. */
export const API_ROUTES: readonly ApiRoute[] = (() => {
  const byPath = new Map<string, Map<string, string>>();
  for (const route of Object.values(REST_ROUTES)) {
    const methods = byPath.get(route.path) ?? new Map<string, string>();
    byPath.set(route.path, methods.set(route.method, routeKey(route)));
  }
  const rest = [...byPath].map(([path, methods]): ApiRoute => ({
    template: `${REST_BASE}${path}`,
    pattern: new RegExp(`^${REST_BASE}${path.replace(/:\w+/g, '[^/]+')}$`),
    surface: 'rest',
    methods,
  }));
  return [...rest, { template: GRAPHQL_PATH, pattern: new RegExp(`^${GRAPHQL_PATH}$`), surface: 'graphql', methods: new Map([['GET', ''], ['POST', '']]) }];
})();

export function matchApiRoute(pathname: string): ApiRoute | undefined {
  return API_ROUTES.find((r) => r.pattern.test(pathname));
}

/** A bounded name for logs and metrics: the route template, a known public path, or `unmatched`. */
export function routeLabel(pathname: string, publicPaths: ReadonlySet<string>): string {
  return matchApiRoute(pathname)?.template ?? (publicPaths.has(pathname) ? pathname : 'unmatched');
}
