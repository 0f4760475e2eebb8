import type { ServerAdapterPlugin } from '@whatwg-node/server';
import type { Route } from './routing.js';
import type { ServerContext } from './server-context.js';

/** First step of every request: what the path is, resolved once, for every later step to read. */
export function useRouting(resolve: (pathname: string) => Route): ServerAdapterPlugin<ServerContext> {
  return {
    onRequest({ url, serverContext }) {
      serverContext.pathname = url.pathname;
      serverContext.route = resolve(serverContext.pathname);
      serverContext.cost = 1;
    },
  };
}
