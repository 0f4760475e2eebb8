import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzParameters } from '../../support/fuzz.js';
import { scrape, seriesValue } from '../../support/metrics.js';
import { startServer, type TestServer } from '../../support/server.js';

/**
 * The response cache against the truth: one instance with the cache at its smallest (1 MiB), another on the
 * same store with it off. After any sequence of writes and reads, every read the cached instance answers
 * is the uncached one's, byte for byte, for every key; and the cache never holds more than its bound.
 */
const MIB = 1_048_576;
let cached: TestServer;
let uncached: TestServer;
let keys: Record<string, string>[];

beforeAll(async () => {
  cached = await startServer({ env: { RESPONSE_CACHE_MB: '1' } });
  uncached = await startServer({ store: cached.shared.store, clock: cached.shared.clock, env: { ...cached.shared.env, RESPONSE_CACHE_MB: '0' } });
  keys = [cached.headers, (await cached.newKey('enterprise', { perMinute: 1_000_000, perDay: 1_000_000 })).auth];
  // Enough animals that a page of 100 is some 9 KB: the bound is reached within a run.
  for (let i = 0; i < 120; i++) await cached.post('/v1/pets', { name: `Animal ${i} ${'~'.repeat(i % 40)}`, categoryId: 1 + (i % 5) });
});
afterAll(async () => {
  await uncached?.stop();
  await cached?.close();
});

const id = fc.integer({ min: 1, max: 140 });
/** Reads repeat (a frontend polls the same few), so some come from memory. */
const often = fc.integer({ min: 1, max: 12 });
const status = fc.option(fc.constantFrom('available', 'pending', 'sold'), { nil: undefined });
const limit = fc.oneof(fc.constantFrom(1, 5, 20, 100), fc.integer({ min: 1, max: 100 }));
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

const step = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('read' as const), path: read, key: fc.integer({ min: 0, max: 1 }) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('write' as const), change: write, key: fc.integer({ min: 0, max: 1 }) }), weight: 1 },
);

const answer = async (server: TestServer, path: string, key: Record<string, string>) => {
  const res = await fetch(`${server.url}${path}`, { headers: key });
  return { status: res.status, body: await res.text(), etag: res.headers.get('etag') };
};

describe('the response cache (property)', () => {
  it('answers every read as an instance without it does, and stays within RESPONSE_CACHE_MB', async () => {
    let hits = 0;
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
      for (const s of steps) {
        const key = keys[s.key]!;
        if (s.kind === 'write') {
          const { method, path, body } = s.change;
          const res = await fetch(`${cached.url}${path}`, {
            method, headers: { ...key, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
          });
          expect(res.status, `${method} ${path}`).toBeLessThan(500);
          continue;
        }
        // The cached instance first (its answer may come from memory), then the truth.
        const got = await fetch(`${cached.url}${s.path}`, { headers: key });
        if (got.headers.get('cache-status') === 'animal-store; hit') hits++;
        const fromCache = { status: got.status, body: await got.text(), etag: got.headers.get('etag') };
        expect(fromCache, s.path).toEqual(await answer(uncached, s.path, key));
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
