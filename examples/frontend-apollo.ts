/**
 * Apollo Client 4 with the API key, as a server (a backend-for-frontend, a job) sets it up for this
 * service; a browser sends its user's access token instead (docs/frontend.md's token setup): queries and mutations over HTTP as
 * automatic persisted queries (the hash alone, as a GET a CDN or the browser may cache, once the service
 * knows the document; its text, as a POST, the first time) with @defer read as it arrives, subscriptions over a WebSocket
 * (graphql-ws).
 * docs/frontend.md shows this file; test/contract/websocket-clients.test.ts runs it.
 */
import { ApolloClient, HttpLink, InMemoryCache, split } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { createPersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { createClient } from 'graphql-ws';

export interface ApolloOptions {
  /** The service's base URL, `https://pets.example.com`. */
  readonly url: string;
  readonly key: string;
  /** A browser has WebSocket built in; Node before 22 needs one (`ws`). */
  readonly webSocketImpl?: unknown;
  /** The fetch HTTP requests go through (the platform's by default). */
  readonly fetch?: typeof fetch;
}

/** The SHA-256 of a document, in hex, with the Web Crypto API of browsers and Node alike. */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function apolloClient({ url, key, webSocketImpl, fetch }: ApolloOptions) {
  const authorization = `Bearer ${key}`;
  const persisted = createPersistedQueryLink({ sha256, useGETForHashedQueries: true });
  const http = persisted.concat(new HttpLink({ uri: `${url}/graphql`, headers: { authorization }, fetch }));
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
