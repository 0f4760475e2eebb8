import type { Endpoint, PublicEndpoint, Route } from './context.js';
import { errorBodies, type Surface } from './error-response.js';

export type { Endpoint, PublicEndpoint, Route };

/** A path resolved: its route, and the values of its `:name` segments, decoded. */
export interface ResolvedPath {
  readonly route: Route;
  readonly params: Readonly<Record<string, string>>;
}

/** The paths of one surface: `:name` segments are parameters; `prefix` and below answer refusals its way. */
export interface SurfaceRoutes {
  readonly prefix: string;
  readonly surface: Surface;
  readonly paths: Readonly<Record<string, Readonly<Record<string, Endpoint>>>>;
}

export interface RouteTable {
  readonly api: readonly SurfaceRoutes[];
  readonly probes: Readonly<Record<string, PublicEndpoint>>;
  readonly pages: Readonly<Record<string, PublicEndpoint>>;
}

export interface Router {
  resolve(pathname: string): ResolvedPath;
  /** Every path the service answers (a template for those with parameters), with the methods it takes, as Allow lists them. */
  readonly paths: readonly { readonly path: string; readonly methods: readonly string[] }[];
}

/** What a public probe or page takes: it answers GET, and HEAD as its GET without the body. */
const PUBLIC_METHODS = ['GET', 'HEAD'];

/**
 * A path's operations by method, HEAD included wherever GET is: a HEAD runs the GET's endpoint, every step
 * seeing the same endpoint (its scopes, its cost, its checks), and the pipeline drops the body.
 */
function withHead(methods: Readonly<Record<string, Endpoint>>): Map<string, Endpoint> {
  const map = new Map<string, Endpoint>();
  for (const [method, endpoint] of Object.entries(methods)) {
    map.set(method, endpoint);
    if (method === 'GET' && !methods.HEAD) map.set('HEAD', endpoint);
  }
  return map;
}

/**
 * Builds, at startup, the table of every path the service knows: exact paths in a map, the few with
 * parameters as patterns. Resolving a path is then one map lookup (or a handful of regex tests). Each
 * route's Allow (for 405s and CORS preflights) is worked out here, once.
 */
export function createRouter({ api, probes, pages }: RouteTable): Router {
  const exact = new Map<string, ResolvedPath>();
  const patterns: { pattern: RegExp; route: Route }[] = [];
  const none = Object.freeze({});
  const surfaceOf = (pathname: string): Surface =>
    api.find(({ prefix }) => pathname === prefix || pathname.startsWith(`${prefix}/`))?.surface ?? errorBodies;
  const table: { path: string; methods: readonly string[] }[] = [];
  const publicRoute = (path: string, route: Omit<Route, 'allow' | 'label'>): Route => {
    table.push({ path, methods: PUBLIC_METHODS });
    return { label: path, ...route, allow: PUBLIC_METHODS.join(', ') };
  };

  for (const { surface, paths } of api) {
    for (const [path, given] of Object.entries(paths)) {
      const methods = withHead(given);
      table.push({ path, methods: [...methods.keys()] });
      const route: Route = { label: path, surface, methods, page: pages[path], allow: [...methods.keys()].join(', ') };
      if (path.includes(':')) patterns.push({ pattern: new RegExp(`^${path.replace(/:(\w+)/g, '(?<$1>[^/]+)')}$`), route });
      else exact.set(path, { route, params: none });
    }
  }
  for (const [path, probe] of Object.entries(probes)) exact.set(path, { route: publicRoute(path, { surface: errorBodies, probe }), params: none });
  for (const [path, page] of Object.entries(pages)) {
    if (!exact.has(path)) exact.set(path, { route: publicRoute(path, { surface: surfaceOf(path), page }), params: none });
  }

  const unmatched = new Map<Surface, ResolvedPath>();
  const resolve = (pathname: string): ResolvedPath => {
    const found = exact.get(pathname);
    if (found) return found;
    for (const { pattern, route } of patterns) {
      const match = pattern.exec(pathname);
      if (match) return { route, params: decoded(match.groups ?? {}) };
    }
    const surface = surfaceOf(pathname);
    let resolved = unmatched.get(surface);
    if (!resolved) unmatched.set(surface, resolved = { route: { label: 'unmatched', surface }, params: none });
    return resolved;
  };
  return { resolve, paths: table };
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
