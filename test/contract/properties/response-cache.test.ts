import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globalId } from '../../../src/domain/global-ids.js';
import { fuzzParameters } from '../../support/fuzz.js';
import { scrape, seriesValue } from '../../support/metrics.js';
import { startServer, type TestServer } from '../../support/server.js';

/**
 * The response cache against the truth: two instances with the cache at its smallest (1 MiB), a third on
 * the same store with it off. After any sequence of writes and reads, by keys of every kind (unrestricted
 * and restricted alike, each with webhook endpoints of its own), every read either cached instance
 * answers is the uncached one's, byte for byte, for the same key; and the cache never holds more than its
 * bound. (Each write is read through by both instances before the next step: another key's change may
 * show 1 s late on the other instance by design, which response-cache.test.ts holds to.)
 */
const MIB = 1_048_576;
let cached: TestServer;
let other: TestServer;
let uncached: TestServer;
let keys: Record<string, string>[];
/** Every key's endpoints' global ids: any key may ask for any of them. */
const endpoints: string[] = [];

/** Endpoints are never sent to: names that need no lookup of a public address. */
const LOOPBACK = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };

beforeAll(async () => {
  cached = await startServer({ env: { RESPONSE_CACHE_MB: '1', ...LOOPBACK } });
  const { store, clock, env } = cached.shared;
  other = await startServer({ store, clock, env });
  uncached = await startServer({ store, clock, env: { ...env, RESPONSE_CACHE_MB: '0' } });
  const generous = { perMinute: 1_000_000, perDay: 1_000_000 };
  keys = [cached.headers, (await cached.newKey('enterprise', generous)).auth];
  for (const scopes of ['pets:read webhooks', 'pets:read webhooks', 'pets:read orders:read webhooks']) keys.push((await cached.newKey('enterprise', generous, scopes)).auth);
  for (const [i, auth] of keys.entries()) {
    const made = await cached.post<{ id: number }>('/v1/webhooks', { url: `https://key${i}.example.com/in`, types: ['pet.created'] }, auth);
    expect(made.status).toBe(201);
    // Never sent to (its host does not exist): the writes below would otherwise wait on its deliveries.
    expect((await cached.patch(`/v1/webhooks/${made.body.id}`, { enabled: false }, auth)).status).toBe(200);
    endpoints.push(globalId('WebhookEndpoint', made.body.id));
  }
  // Enough animals that a page of 100 is some 9 KB: the bound is reached within a run.
  for (let i = 0; i < 120; i++) await cached.post('/v1/pets', { name: `Animal ${i} ${'~'.repeat(i % 40)}`, categoryId: 1 + (i % 5) });
});
afterAll(async () => {
  await uncached?.stop();
  await other?.stop();
  await cached?.close();
});

const id = fc.integer({ min: 1, max: 140 });
/** Reads repeat (a frontend polls the same few), so some come from memory. */
const often = fc.integer({ min: 1, max: 12 });
const status = fc.option(fc.constantFrom('available', 'pending', 'sold'), { nil: undefined });
const limit = fc.oneof(fc.constantFrom(1, 5, 20, 100), fc.integer({ min: 1, max: 100 }));
const endpoint = fc.integer({ min: 0, max: 4 }).map((n) => endpoints[n]!);
const gql = (query: string) => `/graphql?query=${encodeURIComponent(query)}`;

/** A document padded with a comment: a big key, as a hostile client would send to fill the cache (kept by its digest). */
const padded = fc.tuple(limit, fc.integer({ min: 4_000, max: 12_000 })).map(([l, n]) => gql(`{ pets(limit: ${l}) { id categoryId } } # ${'x'.repeat(n)}`));

const read = fc.oneof(
  { arbitrary: padded, weight: 3 },
  fc.tuple(limit, status).map(([l, s]) => `/v1/pets?limit=${l}${s ? `&status=${s}` : ''}`),
  fc.oneof(often, id).map((n) => `/v1/pets/${n}`),
  fc.tuple(limit, fc.option(fc.constantFrom('placed', 'approved', 'delivered', 'cancelled'), { nil: undefined }))
    .map(([l, s]) => `/v1/store/orders?limit=${l}${s ? `&status=${s}` : ''}`),
  id.map((n) => `/v1/store/orders/${n}`),
  fc.tuple(limit, status).map(([l, s]) => gql(`{ pets(limit: ${l}${s ? `, status: ${s}` : ''}) { id name status orders { id status } } }`)),
  id.map((n) => gql(`{ order(orderId: ${n}) { id status pet { id name status } } }`)),
  fc.array(id, { minLength: 1, maxLength: 5 }).map((ids) => gql(`{ nodes(ids: ${JSON.stringify(ids.map((n) => Buffer.from(`Pet:${n}`).toString('base64')))}) { ... on Pet { id name status } } }`)),
  // Records that belong to a key, any key's, read by any key.
  endpoint.map((e) => gql(`{ node(id: "${e}") { nodeId ... on WebhookEndpoint { id url enabled } } }`)),
  fc.array(fc.oneof(endpoint, id.map((n) => globalId('Pet', n)), id.map((n) => globalId('Order', n))), { minLength: 1, maxLength: 4 })
    .map((ids) => gql(`{ nodes(ids: ${JSON.stringify(ids)}) { nodeId ... on WebhookEndpoint { url } ... on Pet { name } ... on Order { status } } }`)),
  fc.tuple(limit, status).map(([l, s]) => gql(`{ petsConnection(first: ${l}${s ? `, status: ${s}` : ''}) { edges { node { id name } } pageInfo { hasNextPage endCursor } } }`)),
);

type Write = { method: 'POST' | 'PATCH' | 'DELETE'; path: string; body?: unknown };
const write = fc.oneof(
  fc.string({ minLength: 1, maxLength: 30 }).map((name): Write => ({ method: 'POST', path: '/v1/pets', body: { name: name.trim() || 'x', categoryId: 2 } })),
  fc.tuple(id, fc.string({ minLength: 1, maxLength: 30 })).map(([n, name]): Write => ({ method: 'PATCH', path: `/v1/pets/${n}`, body: { name: name.trim() || 'y' } })),
  id.map((n): Write => ({ method: 'DELETE', path: `/v1/pets/${n}` })),
  id.map((n): Write => ({ method: 'POST', path: '/v1/store/orders', body: { petId: n } })),
  fc.tuple(id, fc.constantFrom('approved', 'delivered', 'cancelled')).map(([n, s]): Write => ({ method: 'PATCH', path: `/v1/store/orders/${n}`, body: { status: s } })),
);

const key = fc.integer({ min: 0, max: 4 });
const step = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('read' as const), path: read, key, method: fc.constantFrom('GET', 'POST'), second: fc.boolean() }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('write' as const), change: write, key, second: fc.boolean() }), weight: 1 },
);

/** A GraphQL read as GET or POST (its query moved to the body); a REST read as GET. */
const ask = (server: TestServer, path: string, key: Record<string, string>, method: string) => {
  const query = method === 'POST' && path.startsWith('/graphql?') ? new URLSearchParams(path.slice(9)).get('query') : null;
  return query === null
    ? fetch(`${server.url}${path}`, { headers: key })
    : fetch(`${server.url}/graphql`, { method, headers: { ...key, 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
};
const answer = async (res: Response) => ({ status: res.status, body: (await res.text()), etag: res.headers.get('etag') });

describe('the response cache (property)', () => {
  it('answers every read as an instance without it does, and stays within RESPONSE_CACHE_MB', async () => {
    let hits = 0;
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
      for (const s of steps) {
        const key = keys[s.key]!;
        const server = s.second ? other : cached;
        if (s.kind === 'write') {
          const { method, path, body } = s.change;
          const res = await fetch(`${server.url}${path}`, {
            method, headers: { ...key, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
          });
          expect(res.status, `${method} ${path}`).toBeLessThan(500);
          await cached.settle();
          await other.settle();
          continue;
        }
        // A cached instance first (its answer may come from memory), then the truth.
        const got = await ask(server, s.path, key, s.method);
        if (got.headers.get('cache-status') === 'animal-store; hit') hits++;
        expect(await answer(got), `${s.method} ${s.path} (key ${s.key})`).toEqual(await answer(await ask(uncached, s.path, key, s.method)));
      }
      const text = await scrape(cached.url);
      expect(seriesValue(text, 'animal_store_response_cache_bytes')).toBeLessThanOrEqual(MIB);
    }), { ...fuzzParameters, numRuns: Math.max(100, Math.round((fuzzParameters.numRuns ?? 2_000) / 10)) });
    expect(hits).toBeGreaterThan(0);
    // Then past the bound for sure: big answers until some are pushed out, and it still holds.
    for (let n = 0; n < 300; n++) await fetch(`${cached.url}${gql(`{ p${n}: pets(limit: 100) { id name categoryId status } }`)}`, { headers: keys[0] });
    const text = await scrape(cached.url);
    expect(seriesValue(text, 'animal_store_response_cache_evictions_total')).toBeGreaterThan(0);
    expect(seriesValue(text, 'animal_store_response_cache_bytes')).toBeLessThanOrEqual(MIB);
    expect(seriesValue(text, 'animal_store_response_cache_bytes')).toBeGreaterThan(MIB * 0.9);
  }, 600_000);
});
