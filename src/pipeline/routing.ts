import type { Surface } from '../errors.js';
import { GRAPHQL_PATH } from '../graphql/yoga.js';
import { REST_BASE, REST_ROUTES, routeKey } from '../rest/routes.js';
import type { PublicEndpoint } from './use-public-endpoints.js';

/** An authenticated API path: the methods it answers, each with its REST route key ('' for GraphQL). */
export interface ApiRoute {
  readonly methods: ReadonlyMap<string, string>;
}

/** What a path is, resolved once per request, first: every later step reads it from the server context. */
export interface Route {
  /** A bounded name for logs and metrics: the route template, a public path, or `unmatched`. */
  readonly label: string;
  /** Which shape its errors take: GraphQL-over-HTTP under /graphql, the Error body elsewhere. */
  readonly surface: Surface;
  /** Health, readiness, metrics: answered before anything is counted. */
  readonly probe?: PublicEndpoint;
  /** Public pages (documents, docs, GraphiQL), counted against the caller's budget. */
  readonly page?: PublicEndpoint;
  readonly api?: ApiRoute;
}

/** A path resolved: its route, and the values of its `:name` segments, decoded. */
export interface ResolvedPath {
  readonly route: Route;
  readonly params: Readonly<Record<string, string>>;
}

export interface RouteTable {
  readonly probes: Record<string, PublicEndpoint>;
  readonly pages: Record<string, PublicEndpoint>;
}

const surfaceOf = (pathname: string): Surface =>
  (pathname === GRAPHQL_PATH || pathname.startsWith(`${GRAPHQL_PATH}/`) ? 'graphql' : 'rest');

/**
 * Builds, at startup, the table of every path the service knows: exact paths in a map, the few with
 * parameters as patterns. Resolving a path is then one map lookup (or a handful of regex tests).
 */
export function createRouter({ probes, pages }: RouteTable): (pathname: string) => ResolvedPath {
  const exact = new Map<string, ResolvedPath>();
  const patterns: { pattern: RegExp; route: Route }[] = [];
  const none = Object.freeze({});

  const apiPaths = new Map<string, Map<string, string>>();
  for (const route of Object.values(REST_ROUTES)) {
    const path = `${REST_BASE}${route.path}`;
    apiPaths.set(path, (apiPaths.get(path) ?? new Map()).set(route.method, routeKey(route)));
  }
  apiPaths.set(GRAPHQL_PATH, new Map([['GET', ''], ['POST', '']]));

  for (const [path, methods] of apiPaths) {
    const route: Route = { label: path, surface: surfaceOf(path), api: { methods }, page: pages[path] };
    if (path.includes(':')) patterns.push({ pattern: new RegExp(`^${path.replace(/:(\w+)/g, '(?<$1>[^/]+)')}$`), route });
    else exact.set(path, { route, params: none });
  }
  for (const [path, probe] of Object.entries(probes)) exact.set(path, { route: { label: path, surface: 'rest', probe }, params: none });
  for (const [path, page] of Object.entries(pages)) {
    if (!exact.has(path)) exact.set(path, { route: { label: path, surface: surfaceOf(path), page }, params: none });
  }

  const unmatched = {
    rest: { route: { label: 'unmatched', surface: 'rest' }, params: none },
    graphql: { route: { label: 'unmatched', surface: 'graphql' }, params: none },
  } as const;
  return (pathname) => {
    const found = exact.get(pathname);
    if (found) return found;
    for (const { pattern, route } of patterns) {
      const match = pattern.exec(pathname);
      if (match) return { route, params: decoded(match.groups ?? {}) };
    }
    return unmatched[surfaceOf(pathname)];
  };
}

/** A segment that is not valid percent-encoding stays as sent: the argument's own check then refuses it. */
function decoded(groups: Record<string, string>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(groups)) {
    try {
      params[name] = decodeURIComponent(value);
    } catch {
      params[name] = value;
    }
  }
  return params;
}
