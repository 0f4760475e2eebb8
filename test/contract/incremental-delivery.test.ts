import { ApolloClient, HttpLink, InMemoryCache, gql as apolloGql } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { Client, fetchExchange, gql as urqlGql, type OperationResult } from '@urql/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFanOut } from '../support/fan-out.js';
import { startServer, type TestServer } from '../support/server.js';
import { wsClient } from '../support/websocket.js';

/**
 * @defer and @stream (incremental delivery): increments over multipart/mixed (Apollo Client 4, urql) and
 * Server-Sent Events; a client that reads neither gets the whole answer at once. Every increment is held
 * to the node limit, and REST is untouched.
 */
let api: TestServer;
beforeAll(async () => {
  api = await startServer({ env: { GRAPHQL_MAX_NODES: '10000' } });
  for (const name of ['Ada', 'Bo', 'Cy']) await api.post('/v1/pets', { name, categoryId: 1 });
});
afterAll(async () => { await api?.close(); });

const DEFERRED = '{ pets(limit: 3) { id ... @defer { name } } }';
/** What Apollo Client 4 sends for a document with @defer. */
const APOLLO_DEFER_ACCEPT = 'multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json';
const STREAMED = '{ pets(limit: 3) @stream(initialCount: 1) { id name } }';

async function post(query: string, accept: string, variables?: object) {
  return fetch(`${api.url}/graphql`, {
    method: 'POST', headers: { ...api.headers, 'content-type': 'application/json', accept }, body: JSON.stringify({ query, variables }),
  });
}

/** The JSON payloads of a multipart/mixed body, in order. */
const parts = (body: string) => body.split(/\r?\n---/).map((part) => part.split(/\r?\n\r?\n/)[1]).filter((json) => json?.startsWith('{')).map((json) => JSON.parse(json!));

describe('over HTTP', () => {
  it('sends a deferred fragment after the rest, over multipart/mixed', async () => {
    const res = await post(DEFERRED, 'multipart/mixed');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    const [first, ...rest] = parts(await res.text());
    expect(first).toEqual({ data: { pets: [{ id: 1 }, { id: 2 }, { id: 3 }] }, hasNext: true });
    const names = rest.flatMap((payload) => payload.incremental.map((item: { data: { name: string }; path: unknown[] }) => [item.path, item.data.name]));
    expect(names).toEqual([[['pets', 0], 'Ada'], [['pets', 1], 'Bo'], [['pets', 2], 'Cy']]);
    expect(rest.at(-1).hasNext).toBe(false);
  });

  it('streams a list\'s items after the first ones, over Server-Sent Events too', async () => {
    const res = await post(STREAMED, 'text/event-stream');
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = (await res.text()).split('\n\n').filter((event) => event.startsWith('event: next')).map((event) => JSON.parse(event.split('data: ')[1]!));
    expect(events[0]).toEqual({ data: { pets: [{ id: 1, name: 'Ada' }] }, hasNext: true });
    expect(events.flatMap((event) => event.incremental ?? []).flatMap((item: { items: unknown[] }) => item.items)).toEqual([{ id: 2, name: 'Bo' }, { id: 3, name: 'Cy' }]);
  });

  it('answers a client that reads no increments at once, whole, as if the directives were not there', async () => {
    const res = await post(DEFERRED, 'application/json');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({ data: { pets: [{ id: 1, name: 'Ada' }, { id: 2, name: 'Bo' }, { id: 3, name: 'Cy' }] } });
  });

  it('costs one point per root field, as without the directives', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 100, perDay: 1_000 });
    const res = await fetch(`${api.url}/graphql`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: 'multipart/mixed' },
      body: JSON.stringify({ query: '{ a: pets(limit: 1) { id ... @defer { name } } b: pets(limit: 1) @stream { id } }' }),
    });
    await res.text();
    expect(res.headers.get('x-ratelimit-remaining')).toBe('98');
  });

  it('refuses a deferred fan-out past the node limit before it runs, as any other (400)', async () => {
    const deferred = storeFanOut(3).replace('{ ...P1 }', '{ id ...P1 @defer }');
    expect(deferred).toContain('@defer');
    const res = await post(deferred, APOLLO_DEFER_ACCEPT);
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0]).toEqual({ message: expect.stringMatching(/^The operation could return about [\d,]+ nodes .*; the limit is 10,000$/), extensions: { code: 'BAD_REQUEST', status: 400 } });
  });

  it('refuses @defer on a mutation\'s root fields and @stream on what is no list, as validation errors', async () => {
    for (const query of ['mutation { ... @defer { deletePet(petId: 999999) } }', '{ rateLimit @stream { plan } }']) {
      const res = await post(query, APOLLO_DEFER_ACCEPT);
      expect(res.status).toBe(400);
      expect((await res.json()).errors[0].extensions).toEqual({ code: 'BAD_REQUEST', status: 400 });
    }
  });

  it('leaves REST as it was', async () => {
    expect((await api.get('/v1/pets?limit=3')).body.map((pet: { name: string }) => pet.name)).toEqual(['Ada', 'Bo', 'Cy']);
  });
});

describe('with the clients', () => {
  it('Apollo Client 4 (HttpLink, Defer20220824Handler) reads the deferred fields into its answer', async () => {
    const client = new ApolloClient({
      link: new HttpLink({ uri: `${api.url}/graphql`, headers: api.headers }),
      cache: new InMemoryCache(),
      incrementalHandler: new Defer20220824Handler(),
    });
    const { data } = await client.query({ query: apolloGql('query Deferred { pets(limit: 3) { id ... @defer { name } } }'), fetchPolicy: 'network-only' });
    expect(data).toEqual({ pets: [1, 2, 3].map((id, i) => ({ __typename: 'Pet', id, name: ['Ada', 'Bo', 'Cy'][i] })) });
  });

  it('urql (fetchExchange) reads each increment, then the whole answer', async () => {
    const client = new Client({ url: `${api.url}/graphql`, exchanges: [fetchExchange], fetchOptions: { headers: api.headers } });
    const results = await new Promise<OperationResult[]>((resolve) => {
      const seen: OperationResult[] = [];
      const { unsubscribe } = client.query(urqlGql(DEFERRED), {}).subscribe((result) => {
        seen.push(result);
        // Once the body has ended: urql aborts a fetch still being read, and its reader rejects unheard.
        if (!result.hasNext) setTimeout(() => { unsubscribe(); resolve(seen); }, 100);
      });
    });
    expect(results.length).toBeGreaterThan(1);
    expect(results[0]!.data).toEqual({ pets: [{ id: 1 }, { id: 2 }, { id: 3 }] });
    expect(results.at(-1)!.data).toEqual({ pets: [{ id: 1, name: 'Ada' }, { id: 2, name: 'Bo' }, { id: 3, name: 'Cy' }] });
  });

  it('over a WebSocket the answer comes whole, in one `next`', async () => {
    const ws = wsClient(api.url, api.headers);
    expect(await ws.run(DEFERRED)).toEqual({ data: { pets: [{ id: 1, name: 'Ada' }, { id: 2, name: 'Bo' }, { id: 3, name: 'Cy' }] } });
    await ws.dispose();
  });
});
