/**
 * urql with graphcache (a normalized cache: a mutation's answer updates every query that shows the same
 * record), every operation over one WebSocket, with the API key as a server sets it up; a browser sends
 * its user's access token instead (docs/frontend.md's token setup). docs/frontend.md shows this file;
 * test/contract/websocket-clients.test.ts runs it.
 */
import { Client, subscriptionExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { createClient } from 'graphql-ws';

export interface UrqlOptions {
  readonly url: string;
  readonly key: string;
  /** A browser has WebSocket built in; Node before 22 needs one (`ws`). */
  readonly webSocketImpl?: unknown;
}

export function urqlClient({ url, key, webSocketImpl }: UrqlOptions) {
  const sockets = createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    connectionParams: { authorization: `Bearer ${key}` },
    retryAttempts: Infinity,
    webSocketImpl,
  });
  const client = new Client({
    url: `${url}/graphql`,
    exchanges: [
      // Your quota is no record of its own: it is kept with the query that read it.
      cacheExchange({ keys: { RateLimit: () => null, RateLimitWindow: () => null } }),
      subscriptionExchange({
        enableAllOperations: true,
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: sockets.subscribe({ ...request, query: request.query ?? '' }, sink) }),
        }),
      }),
    ],
  });
  return { client, sockets };
}
