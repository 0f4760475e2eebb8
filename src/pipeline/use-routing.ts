import type { Step } from './pipeline.js';
import type { ResolvedPath } from './routing.js';

/** First step of every request: what the path is, resolved once, for every later step to read. */
export function useRouting(resolve: (pathname: string) => ResolvedPath): Step {
  return {
    onRequest({ url, serverContext }) {
      serverContext.startedAt = performance.now();
      serverContext.pathname = url.pathname;
      serverContext.search = url.search;
      const { route, params } = resolve(url.pathname);
      serverContext.route = route;
      serverContext.pathParams = params;
      serverContext.cost = 1;
    },
  };
}
