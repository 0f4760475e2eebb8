import { ApolloClient, HttpLink, InMemoryCache, gql as apolloGql, split } from '@apollo/client';
import { CombinedGraphQLErrors } from '@apollo/client/errors';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { cacheExchange } from '@urql/exchange-graphcache';
import { Client, gql as urqlGql, subscriptionExchange } from '@urql/core';
import { createClient, type Client as WsClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startPair, type TestServer } from '../support/server.js';

/**
 * The WebSocket transport as frontend teams set it up (docs/frontend.md): Apollo Client 4 with
 * GraphQLWsLink for subscriptions beside its HttpLink, and urql with graphcache sending every operation
 * over graphql-ws. Two instances share one store (and Redis, on MySQL): a subscriber on one hears a write
 * made through the other, as behind a load balancer.
 */
let a: TestServer;
let b: TestServer;
let stop: () => Promise<void>;
beforeAll(async () => { ({ a, b, stop } = await startPair({})); });
afterAll(async () => { await stop?.(); });

const wsUrl = (api: TestServer) => `${api.url.replace(/^http/, 'ws')}/graphql`;
const sockets: WsClient[] = [];
const graphqlWs = (api: TestServer, authorization: string) => {
  const client = createClient({ url: wsUrl(api), webSocketImpl: WebSocket, connectionParams: { authorization }, retryAttempts: 0 });
  sockets.push(client);
  return client;
};
afterAll(async () => { await Promise.all(sockets.map((client) => client.dispose())); });

/** Resolves with the first `count` values an observable-like source emits. */
function first<T>(source: { subscribe(observer: { next(value: T): void; error(error: unknown): void }): { unsubscribe(): void } }, count: number, ms = 8_000) {
  return new Promise<T[]>((resolve, reject) => {
    const values: T[] = [];
    const timer = setTimeout(() => { subscription.unsubscribe(); reject(new Error(`only ${values.length} of ${count} in ${ms} ms`)); }, ms);
    const subscription = source.subscribe({
      next(value) {
        values.push(value);
        if (values.length === count) { clearTimeout(timer); subscription.unsubscribe(); resolve(values); }
      },
      error(error) { clearTimeout(timer); reject(error); },
    });
  });
}

describe('Apollo Client 4: GraphQLWsLink for subscriptions, HttpLink for the rest', () => {
  function apollo(api: TestServer, authorization: string) {
    const ws = new GraphQLWsLink(graphqlWs(api, authorization));
    const http = new HttpLink({ uri: `${api.url}/graphql`, headers: { authorization } });
    const link = split(({ query }) => {
      const definition = getMainDefinition(query);
      return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
    }, ws, http);
    return { client: new ApolloClient({ link, cache: new InMemoryCache() }), ws: new ApolloClient({ link: ws, cache: new InMemoryCache() }) };
  }

  it('hears, on one instance, the animals created through the other', async () => {
    const { client } = apollo(a, a.headers.authorization!);
    const other = apollo(b, b.headers.authorization!).client;
    const heard = first<{ data?: { petChanged: { kind: string; pet: { name: string } } } }>(
      client.subscribe({ query: apolloGql('subscription { petChanged { kind pet { id name } } }') }), 2);
    await new Promise((resolve) => setTimeout(resolve, 400));
    for (const name of ['Apollo-1', 'Apollo-2']) {
      await other.mutate({ mutation: apolloGql('mutation ($name: String!) { createPet(input: {name: $name, categoryId: 1}) { id } }'), variables: { name } });
    }
    expect((await heard).map(({ data }) => [data!.petChanged.kind, data!.petChanged.pet.name])).toEqual([['CREATED', 'Apollo-1'], ['CREATED', 'Apollo-2']]);
  });

  it('runs queries over the socket too, and reads a refusal as a GraphQL error with its code', async () => {
    const { ws } = apollo(a, a.headers.authorization!);
    const { data } = await ws.query({ query: apolloGql('{ rateLimit { plan } }'), fetchPolicy: 'network-only' });
    expect(data).toEqual({ rateLimit: { __typename: 'RateLimit', plan: 'enterprise' } });
    const refused = await ws.query({ query: apolloGql('{ pets(limit: 0) { id } }'), fetchPolicy: 'network-only' }).catch((error: unknown) => error);
    expect(CombinedGraphQLErrors.is(refused)).toBe(true);
    expect((refused as CombinedGraphQLErrors).errors[0]!.extensions).toEqual(expect.objectContaining({ code: 'BAD_REQUEST', status: 400 }));
  });
});

describe('urql with graphcache, every operation over graphql-ws', () => {
  it('sees a mutation\'s result in its normalized cache without a refetch, and hears subscriptions', async () => {
    const socket = graphqlWs(a, a.headers.authorization!);
    const client = new Client({
      url: `${a.url}/graphql`,
      exchanges: [
        cacheExchange({ keys: { RateLimit: () => null, RateLimitWindow: () => null } }),
        subscriptionExchange({
          enableAllOperations: true,
          forwardSubscription: (request) => ({
            subscribe: (sink) => ({ unsubscribe: socket.subscribe({ ...request, query: request.query ?? '' }, sink) }),
          }),
        }),
      ],
    });
    const created = await client.mutation(urqlGql('mutation { createPet(input: {name: "Urql", categoryId: 1}) { id name status } }'), {}).toPromise();
    expect(created.error).toBeUndefined();
    const { id } = created.data.createPet;
    const read = await client.query(urqlGql('query ($id: SafeInt!) { pet(petId: $id) { id name status } }'), { id }).toPromise();
    expect(read.data.pet).toMatchObject({ id, name: 'Urql', status: 'available' });
    const renamed = await client.mutation(urqlGql('mutation ($id: SafeInt!) { updatePet(petId: $id, input: {name: "Urql 2"}) { id name status } }'), { id }).toPromise();
    expect(renamed.error).toBeUndefined();
    // From the cache: the mutation's answer updated the normalized record.
    const cached = await client.query(urqlGql('query ($id: SafeInt!) { pet(petId: $id) { id name status } }'), { id }, { requestPolicy: 'cache-only' }).toPromise();
    expect(cached.data.pet.name).toBe('Urql 2');

    const events = first<{ data?: { orderChanged: { kind: string } } }>(
      { subscribe: (observer) => client.subscription(urqlGql('subscription { orderChanged { kind order { id } } }'), {}).subscribe((result) => observer.next(result as never)) }, 1);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await b.post('/v1/store/orders', { petId: id })).status).toBe(201);
    expect((await events)[0]!.data!.orderChanged.kind).toBe('CREATED');
  });
});
