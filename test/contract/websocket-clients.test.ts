import { ApolloClient, InMemoryCache, gql as apolloGql } from '@apollo/client';
import { CombinedGraphQLErrors } from '@apollo/client/errors';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { gql as urqlGql } from '@urql/core';
import { createClient, type Client as WsClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { apolloClient } from '../../examples/frontend-apollo.js';
import { urqlClient } from '../../examples/frontend-urql.js';
import { startPair, type TestServer } from '../support/server.js';

/**
 * The setups docs/frontend.md shows (examples/frontend-*.ts), run against the service: Apollo Client 4
 * with GraphQLWsLink for subscriptions beside its HttpLink, and urql with graphcache sending every
 * operation over graphql-ws. Two instances share one store (and Redis, on MySQL): a subscriber on one hears a write
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

describe('Apollo Client 4, as examples/frontend-apollo.ts sets it up', () => {
  const keyOf = (api: TestServer) => api.headers.authorization!.replace('Bearer ', '');
  const apollo = (api: TestServer) => {
    const made = apolloClient({ url: api.url, key: keyOf(api), webSocketImpl: WebSocket });
    sockets.push(made.sockets);
    return made.client;
  };

  it('hears over its WebSocket, on one instance, the animals created over HTTP through the other', async () => {
    const client = apollo(a);
    const other = apollo(b);
    const heard = first<{ data?: { petChanged: { kind: string; pet: { name: string } } } }>(
      client.subscribe({ query: apolloGql('subscription { petChanged { kind pet { id name } } }') }), 2);
    await new Promise((resolve) => setTimeout(resolve, 400));
    for (const name of ['Apollo-1', 'Apollo-2']) {
      await other.mutate({ mutation: apolloGql('mutation ($name: String!) { createPet(input: {name: $name, categoryId: 1}) { id } }'), variables: { name } });
    }
    expect((await heard).map(({ data }) => [data!.petChanged.kind, data!.petChanged.pet.name])).toEqual([['CREATED', 'Apollo-1'], ['CREATED', 'Apollo-2']]);
  });

  it('sends a query as its hash (GET), its text (POST) once the service asks for it, then the hash alone again', async () => {
    const sent: { method: string; hashOnly: boolean; status: number }[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const target = new URL(String(input));
      const hashOnly = init?.method === 'GET' ? !target.searchParams.has('query') : !JSON.parse(String(init?.body)).query;
      sent.push({ method: init?.method ?? 'GET', hashOnly, status: response.status });
      return response;
    };
    const query = apolloGql('query Persisted { pets(limit: 1) { id name } }');
    for (const n of [1, 2]) {
      const { client, sockets: socket } = apolloClient({ url: a.url, key: keyOf(a), webSocketImpl: WebSocket, fetch: recording });
      sockets.push(socket);
      expect((await client.query({ query, fetchPolicy: 'network-only' })).data, `client ${n}`).toEqual({ pets: expect.any(Array) });
    }
    // The first client: the hash, not found, then the text; the second (the document now registered): the hash alone.
    expect(sent).toEqual([
      { method: 'GET', hashOnly: true, status: 404 },
      { method: 'POST', hashOnly: false, status: 200 },
      { method: 'GET', hashOnly: true, status: 200 },
    ]);
  });

  it('reads a deferred fragment into its answer', async () => {
    const { data } = await apollo(a).query({ query: apolloGql('query Deferred { pets(limit: 2) { id ... @defer { name } } }'), fetchPolicy: 'network-only' });
    expect((data as { pets: { name: string }[] }).pets.every((pet) => typeof pet.name === 'string')).toBe(true);
  });

  it('runs queries over the socket too (GraphQLWsLink alone), and reads a refusal as a GraphQL error with its code', async () => {
    const ws = new ApolloClient({ link: new GraphQLWsLink(graphqlWs(a, a.headers.authorization!)), cache: new InMemoryCache() });
    const { data } = await ws.query({ query: apolloGql('{ rateLimit { plan } }'), fetchPolicy: 'network-only' });
    expect(data).toEqual({ rateLimit: { __typename: 'RateLimit', plan: 'enterprise' } });
    const refused = await ws.query({ query: apolloGql('{ pets(limit: 0) { id } }'), fetchPolicy: 'network-only' }).catch((error: unknown) => error);
    expect(CombinedGraphQLErrors.is(refused)).toBe(true);
    expect((refused as CombinedGraphQLErrors).errors[0]!.extensions).toEqual(expect.objectContaining({ code: 'BAD_REQUEST', status: 400 }));
  });
});

describe('urql with graphcache, every operation over graphql-ws, as examples/frontend-urql.ts sets it up', () => {
  it('sees a mutation\'s result in its normalized cache without a refetch, and hears subscriptions', async () => {
    const { client, sockets: socket } = urqlClient({ url: a.url, key: a.headers.authorization!.replace('Bearer ', ''), webSocketImpl: WebSocket });
    sockets.push(socket);
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
