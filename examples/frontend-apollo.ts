/**
 * Apollo Client 4 as a frontend sets it up for this service: queries and mutations over HTTP (with
 * @defer read as it arrives), subscriptions over a WebSocket (graphql-ws) that resumes where it left off.
 * docs/frontend.md shows this file; test/contract/websocket-clients.test.ts runs it.
 */
import { ApolloClient, HttpLink, InMemoryCache, split } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { createClient } from 'graphql-ws';

export interface ApolloOptions {
  /** The service's base URL, `https://pets.example.com`. */
  readonly url: string;
  readonly key: string;
  /** A browser has WebSocket built in; Node before 22 needs one (`ws`). */
  readonly webSocketImpl?: unknown;
}

export function apolloClient({ url, key, webSocketImpl }: ApolloOptions) {
  const authorization = `Bearer ${key}`;
  const http = new HttpLink({ uri: `${url}/graphql`, headers: { authorization } });
  const sockets = createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    // Checked at connection_init: a refused or revoked key closes the socket with 4403 and its reason.
    connectionParams: { authorization },
    // A restarting instance closes its sockets with 1001: reconnect (to another one) and subscribe again.
    retryAttempts: Infinity,
    webSocketImpl,
  });
  const link = split(({ query }) => {
    const definition = getMainDefinition(query);
    return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
  }, new GraphQLWsLink(sockets), http);
  const client = new ApolloClient({ link, cache: new InMemoryCache(), incrementalHandler: new Defer20220824Handler() });
  return { client, sockets };
}
