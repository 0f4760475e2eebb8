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

/**
 * Builds, at startup, the table of every path the service knows: exact paths in a map, the few with
 * parameters as patterns. Resolving a path is then one map lookup (or a handful of regex tests).
 */
export function createRouter({ api, probes, pages }: RouteTable): (pathname: string) => ResolvedPath {
  const exact = new Map<string, ResolvedPath>();
  const patterns: { pattern: RegExp; route: Route }[] = [];
  const none = Object.freeze({});
  const surfaceOf = (pathname: string): Surface =>
    api.find(({ prefix }) => pathname === prefix || pathname.startsWith(`${prefix}/`))?.surface ?? errorBodies;

  for (const { surface, paths } of api) {
    for (const [path, methods] of Object.entries(paths)) {
      const route: Route = { label: path, surface, methods: new Map(Object.entries(methods)), page: pages[path] };
      if (path.includes(':')) patterns.push({ pattern: new RegExp(`^${path.replace(/:(\w+)/g, '(?<$1>[^/]+)')}$`), route });
      else exact.set(path, { route, params: none });
    }
  }
  for (const [path, probe] of Object.entries(probes)) exact.set(path, { route: { label: path, surface: errorBodies, probe }, params: none });
  for (const [path, page] of Object.entries(pages)) {
    if (!exact.has(path)) exact.set(path, { route: { label: path, surface: surfaceOf(path), page }, params: none });
  }

  const unmatched = new Map<Surface, ResolvedPath>();
  return (pathname) => {
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
