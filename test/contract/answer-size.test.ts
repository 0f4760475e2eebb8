import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyOn } from '../support/backend.js';
import { introspectionFanOut, storeFanOut } from '../support/fan-out.js';
import { LARGEST_QUERIES } from '../support/large-queries.js';
import { listeningUrl, spawnedServers } from '../support/process.js';
import { startServer, type TestServer } from '../support/server.js';

/**
 * Issue 30: a GraphQL document of about a kilobyte, within every other operation limit and costing one
 * point, whose answer fans out through aliased lists and fragments, killed the process (heap out of
 * memory). The service runs here as in production (its own process, a 128 MB heap), so the old code's
 * failure is the process dying.
 */
const servers = spawnedServers();
const REFUSAL = /^The operation could return about [\d,]+ nodes \(fields and list items, each list at its page size\); the limit is 50,000$/;

async function send(url: string, auth: Record<string, string>, query: string) {
  const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function expectRefused(reply: Awaited<ReturnType<typeof send>>) {
  expect(reply.status).toBe(400);
  expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(reply.body).toEqual({ errors: [{ message: expect.stringMatching(REFUSAL), extensions: { code: 'BAD_REQUEST', status: 400 } }] });
  // Refused before it runs, it costs its one point like any refused operation.
  expect(reply.headers.get('x-ratelimit-limit')).toBe('100000');
  expect(reply.headers.get('x-ratelimit-remaining')).toBe('99999');
}

describe('the answer\'s size, estimated before the operation runs (issue 30)', () => {
  it('refuses the introspection fan-out, sent with a webhooks-only key, with 400 BAD_REQUEST naming the limit, and stays up', async () => {
    const { server, store } = await servers.start({ NODE_OPTIONS: '--max-old-space-size=128' });
    const url = await listeningUrl(server);
    const auth = await keyOn(store, 'enterprise', { perMinute: 100_000, perDay: 100_000 }, 'webhooks');
    const query = introspectionFanOut();
    expect(query.length).toBeLessThan(1_100);
    await expectRefused(await send(url, auth, query));
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await send(url, auth, '{ __schema { queryType { name } } }')).body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
  }, 60_000);

  it('refuses the store fan-out through Pet.orders and Order.pet with 400 BAD_REQUEST naming the limit, and stays up', async () => {
    const { server, store } = await servers.start({ NODE_OPTIONS: '--max-old-space-size=128' });
    const url = await listeningUrl(server);
    const auth = { ...await keyOn(store), 'content-type': 'application/json' };
    for (let i = 0; i < 100; i += 1) {
      const pet = await (await fetch(`${url}/v1/pets`, { method: 'POST', headers: auth, body: JSON.stringify({ name: `Fan ${i}`, categoryId: 1 }) })).json();
      expect((await fetch(`${url}/v1/store/orders`, { method: 'POST', headers: auth, body: JSON.stringify({ petId: pet.id }) })).status).toBe(201);
    }
    await expectRefused(await send(url, await keyOn(store), storeFanOut()));
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const largest = await send(url, auth, LARGEST_QUERIES['20 root lists of 100 pets, each with its orders']!);
    expect(largest.status).toBe(200);
    expect(largest.body.data.p19).toHaveLength(100);
    expect(largest.body.data.p19[99].orders).toHaveLength(1);
  }, 120_000);
});

describe('the answer\'s size, counted while the operation runs', () => {
  let api: TestServer;
  const ORDERS = 40;
  beforeAll(async () => {
    api = await startServer({ env: { GRAPHQL_MAX_NODES: '10000' } });
    const petId = (await api.post('/v1/pets', { name: 'Ordered often', categoryId: 1 })).body.id;
    // An animal ordered and cancelled again and again: more orders than the estimate assumes (3).
    for (let i = 0; i < ORDERS; i += 1) {
      const order = (await api.post('/v1/store/orders', { petId })).body;
      await api.patch(`/v1/store/orders/${order.id}`, { status: 'cancelled' });
    }
  }, 120_000);
  afterAll(async () => { await api?.close(); });

  // The first pet (this server's only one), with 100 aliases of its orders: estimated 100 × (1 + 3 × 6),
  // about 1,900 nodes; 100 × 40 orders run.
  const query = (n: number) => `{ pets(limit: 1) { ${Array.from({ length: n }, (_, i) => `o${i}: orders { ...O }`).join(' ')} } }
    fragment O on Order { id petId status complete placedAt }`;

  it('ends an operation whose lists hold more than estimated: data null and 400 BAD_REQUEST naming the limit, with status 200', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 1_000, perDay: 1_000 });
    const res = await api.gql(query(100), undefined, auth);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // It ran: its point is spent.
    expect(res.headers.get('x-ratelimit-remaining')).toBe('999');
    expect(res.body).toEqual({
      data: null,
      errors: [{
        message: 'The answer grew past 10,000 nodes while the operation ran, more than its estimate (a list held more items than assumed); '
          + 'the limit is 10,000: ask for fewer items or fewer nested lists',
        extensions: { code: 'BAD_REQUEST', status: 400 },
      }],
    });
  });

  it('answers the same operation whole while its answer stays within the limit', async () => {
    const res = await api.gql(query(10));
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.pets[0].o9).toHaveLength(ORDERS);
  });

  it('counts each execution from zero: the next operation on the server is unaffected', async () => {
    for (let i = 0; i < 3; i += 1) expect((await api.gql(query(10))).body.data.pets[0].o0).toHaveLength(ORDERS);
    expect((await api.get('/v1/pets?limit=100')).status).toBe(200);
  });
});
