import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend } from '../support/backend.js';
import { scrape, seriesValue } from '../support/metrics.js';
import { startPair, startServer, type TestServer } from '../support/server.js';
import { wsClient } from '../support/websocket.js';
import { CACHE_FRESH_MS } from '../../src/assembly/response-cache.js';

/**
 * Validators, 304s and the response cache, from outside: the ETag changes exactly when the answer does,
 * a 304 costs no point, a hit is the miss's answer byte for byte, a write on one instance is never hidden
 * from its key's next read on another, and a cache whose outbox reader cannot read stops serving.
 */
const get = (server: TestServer, path: string, headers: Record<string, string> = {}, method = 'GET') =>
  fetch(`${server.url}${path}`, { method, headers: { ...server.headers, ...headers } });
const gqlGet = (query: string) => `/graphql?query=${encodeURIComponent(query)}`;
const remaining = (res: Response) => Number(res.headers.get('x-ratelimit-remaining'));

describe('validators and 304s', () => {
  let api: TestServer;
  beforeAll(async () => {
    api = await startServer();
    for (let i = 1; i <= 8; i++) await api.post('/v1/pets', { name: `Pet ${i}`, categoryId: 1 });
  });
  afterAll(async () => { await api?.close(); });

  it('gives every read an ETag that changes exactly when its answer does, on both surfaces', async () => {
    for (const path of ['/v1/pets?limit=5', '/v1/pets/3', gqlGet('{ pets(limit: 5) { id name } }')]) {
      const first = await get(api, path);
      const body = await first.text();
      const tag = first.headers.get('etag');
      expect(tag, path).toMatch(/^"[\w-]{27}"$/);
      expect(first.headers.get('cache-control'), path).toBe('private, no-cache');
      // CORS adds Origin where it is on.
      expect(first.headers.get('vary')?.replace(/, Origin$/, ''), path).toBe(path.startsWith('/graphql') ? 'Accept, Authorization' : 'Authorization');
      // Unchanged: the same tag, on GET and HEAD.
      expect((await get(api, path)).headers.get('etag'), path).toBe(tag);
      expect((await get(api, path, {}, 'HEAD')).headers.get('etag'), path).toBe(tag);
      // A change the answer does not show (a pet past the page, or another pet): the same tag.
      const other = await api.post<{ id: number }>('/v1/pets', { name: 'Past the page', categoryId: 2 });
      expect((await get(api, path)).headers.get('etag'), path).toBe(tag);
      await api.del(`/v1/pets/${other.body.id}`);
      // A change it shows: another tag; changed back, the first again (the tag is of the bytes).
      await api.patch('/v1/pets/3', { name: 'Renamed' });
      const changed = await get(api, path);
      expect(changed.headers.get('etag'), path).not.toBe(tag);
      expect(await changed.text(), path).not.toBe(body);
      await api.patch('/v1/pets/3', { name: 'Pet 3' });
      const back = await get(api, path);
      expect(back.headers.get('etag'), path).toBe(tag);
      expect(await back.text(), path).toBe(body);
    }
  });

  it('answers If-None-Match with a 304 that has the headers and no body, and costs no point', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 3, perDay: 1_000 });
    for (const path of ['/v1/pets?limit=2', gqlGet('{ pets(limit: 2) { id } }')]) {
      const first = await get(api, path, auth);
      const tag = first.headers.get('etag')!;
      const left = remaining(first);
      for (let i = 0; i < 5; i++) {
        const again = await fetch(`${api.url}${path}`, { headers: { ...auth, 'if-none-match': tag } });
        expect(again.status, path).toBe(304);
        expect(await again.text(), path).toBe('');
        expect(again.headers.get('etag'), path).toBe(tag);
        expect(again.headers.get('cache-control'), path).toBe('private, no-cache');
        expect(again.headers.get('content-type'), path).toBeNull();
        expect(again.headers.get('x-request-id'), path).toBeTruthy();
        // The windows as they stand: nothing taken.
        expect(remaining(again), path).toBe(left);
        expect(again.headers.get('ratelimit'), path).toMatch(new RegExp(`"minute";r=${left};`));
      }
      // Weak comparison and lists, as RFC 9110 has them.
      expect((await get(api, path, { ...auth, 'if-none-match': `"other", W/${tag}` })).status, path).toBe(304);
      expect((await get(api, path, { ...auth, 'if-none-match': '*' })).status, path).toBe(304);
    }
    // A tag that no longer matches is a full answer, and costs its point; then the key has none left.
    const full = await get(api, '/v1/pets?limit=2', { ...auth, 'if-none-match': '"stale"' });
    expect(full.status).toBe(200);
    expect(remaining(full)).toBe(0);
    // Out of points: a 304 is still free; a read that needs an answer is 429, with the usual headers.
    const tag = full.headers.get('etag')!;
    expect((await get(api, '/v1/pets?limit=2', { ...auth, 'if-none-match': tag })).status).toBe(304);
    const refused = await fetch(`${api.url}/v1/pets?limit=2`, { headers: { ...auth, 'if-none-match': '"stale"' } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect(refused.headers.get('etag')).toBeNull();
    expect((await refused.json()).code).toBe('RATE_LIMITED');
  });

  it('leaves a write, an error and a page without validators', async () => {
    const created = await api.post('/v1/pets', { name: 'No tag', categoryId: 1 });
    expect(created.headers.get('etag')).toBeNull();
    const missing = await get(api, '/v1/pets/999999');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('etag')).toBeNull();
    expect(missing.headers.get('cache-control')).toBe('no-store');
    expect((await fetch(`${api.url}/v1/openapi.json`)).headers.get('cache-control')).toBe('no-cache');
  });
});

describe('the response cache', () => {
  let api: TestServer;
  beforeAll(async () => {
    api = await startServer();
    for (let i = 1; i <= 5; i++) await api.post('/v1/pets', { name: `Pet ${i}`, categoryId: 1 });
  });
  afterAll(async () => { await api?.close(); });

  it('answers a repeated read from memory, byte for byte and header for header, and says so', async () => {
    for (const path of ['/v1/pets?limit=3', '/v1/pets/2', gqlGet('query Two { pet2: pets(limit: 2) { id name status } }')]) {
      const miss = await get(api, path);
      expect(miss.headers.get('cache-status'), path).toBe('animal-store; fwd=miss');
      const hit = await fetch(`${api.url}${path}`, { headers: api.headers });
      expect(hit.headers.get('cache-status'), path).toBe('animal-store; hit');
      expect(await hit.text(), path).toBe(await miss.text());
      const same = (res: Response) => Object.fromEntries([...res.headers].filter(([name]) => !['date', 'x-request-id', 'x-ratelimit-remaining', 'ratelimit', 'cache-status'].includes(name)));
      expect(same(hit), path).toEqual(same(miss));
      expect(remaining(hit), path).toBe(remaining(miss) - 1);
    }
    // A GraphQL query POSTed is kept too (no validators: a POST's answer is not HTTP's to keep).
    const query = 'query Posted { pets(limit: 2) { id } }';
    expect((await api.gql(query)).headers.get('cache-status')).toBe('animal-store; fwd=miss');
    const posted = await api.gql(query);
    expect(posted.headers.get('cache-status')).toBe('animal-store; hit');
    expect(posted.headers.get('etag')).toBeNull();
    expect(posted.body).toEqual({ data: { pets: [{ id: 1 }, { id: 2 }] } });
  });

  it('never answers an operation on a WebSocket from what an HTTP request left, nor keeps its result', async () => {
    const query = '{ pets(limit: 2) { id name } }';
    const accept = { accept: 'application/graphql-response+json, application/json' };
    await api.gql(query, undefined, accept);
    expect((await api.gql(query, undefined, accept)).headers.get('cache-status')).toBe('animal-store; hit');
    const socket = wsClient(api.url, { authorization: api.headers.authorization });
    try {
      for (let i = 0; i < 2; i++) expect(await socket.run(query)).toEqual({ data: { pets: [{ id: 1, name: 'Pet 1' }, { id: 2, name: 'Pet 2' }] } });
    } finally {
      await socket.dispose();
    }
  });

  it('counts hits as the requests they are: metrics, operations and the log', async () => {
    const before = await scrape(api.url);
    const path = gqlGet('query Counted { pets(limit: 1) { id } }');
    await get(api, path);
    await get(api, path);
    const after = await scrape(api.url);
    const delta = (name: string, labels: Record<string, string>) => (seriesValue(after, name, labels) ?? 0) - (seriesValue(before, name, labels) ?? 0);
    expect(delta('animal_store_response_cache_requests_total', { outcome: 'hit' })).toBe(1);
    expect(delta('animal_store_response_cache_requests_total', { outcome: 'miss' })).toBe(1);
    expect(delta('animal_store_graphql_operations_total', { operation: 'Counted', type: 'query' })).toBe(2);
    expect(delta('animal_store_http_requests_total', { method: 'GET', route: '/graphql', status: '200' })).toBe(2);
    expect(seriesValue(after, 'animal_store_response_cache_entries')).toBeGreaterThan(0);
  });

  it('never keeps what is not a record read: errors, the quota, a mutation', async () => {
    const notFound = gqlGet('{ pet(petId: 999999) { id } }');
    await get(api, notFound);
    expect((await get(api, notFound)).headers.get('cache-status')).toBe('animal-store; fwd=miss');
    const quota = '/v1/rate_limit';
    await get(api, quota);
    expect((await get(api, quota)).headers.get('cache-status')).toBeNull();
    expect((await api.gql('mutation { createPet(input: { name: "M", categoryId: 1 }) { id } }')).headers.get('cache-status')).toBeNull();
  });

  it('drops an answer when a record it read changes, and keeps those the change did not reach', async () => {
    const page = '/v1/pets?limit=2';
    const single = '/v1/pets/5';
    for (const path of [page, single]) await get(api, path);
    await api.patch('/v1/pets/1', { name: 'Changed' });
    // The change is read through before its answer goes: the next read on this instance already shows it.
    const fresh = await get(api, page);
    expect(fresh.headers.get('cache-status')).toBe('animal-store; fwd=miss');
    expect((await fresh.json())[0].name).toBe('Changed');
    expect((await get(api, single)).headers.get('cache-status')).toBe('animal-store; hit');
    // Another key, on the same instance, reads the change at once too.
    const other = await api.newKey('pro');
    expect((await (await get(api, page, other.auth)).json())[0].name).toBe('Changed');
  });

  it('keeps a restricted key\'s answers apart from those of a key that may see more', async () => {
    const petsOnly = await api.newKey('pro', {}, 'pets:read');
    const query = gqlGet('{ pets(limit: 1) { id } }');
    await get(api, query);
    expect((await get(api, query)).headers.get('cache-status')).toBe('animal-store; hit');
    expect((await get(api, query, petsOnly.auth)).headers.get('cache-status')).toBe('animal-store; fwd=miss');
    expect((await get(api, query, petsOnly.auth)).headers.get('cache-status')).toBe('animal-store; hit');
    // Every unrestricted key shares the entries: they see the same.
    expect((await get(api, query, (await api.newKey('pro')).auth)).headers.get('cache-status')).toBe('animal-store; hit');
  });
});

describe('the response cache across two instances', () => {
  let pair: Awaited<ReturnType<typeof startPair>>;
  beforeAll(async () => {
    pair = await startPair({});
    for (let i = 1; i <= 3; i++) await pair.a.post('/v1/pets', { name: `Pet ${i}`, categoryId: 1 });
  });
  afterAll(async () => { await pair?.stop(); });

  it('never hides a key\'s write on one instance from its next read on the other', async () => {
    const { a, b } = pair;
    const key = a.headers;
    for (let round = 0; round < 10; round++) {
      // Warm the other instance's cache (once it has read the last round's write through), then write
      // through the first and read at once through the other.
      await expect.poll(async () => (await get(b, '/v1/pets/2', key)).headers.get('cache-status'), { timeout: 2_500, interval: 20 }).toBe('animal-store; hit');
      await a.patch('/v1/pets/2', { name: `Round ${round}` });
      const read = await get(b, '/v1/pets/2', key);
      expect((await read.json()).name).toBe(`Round ${round}`);
      const listed = await (await get(b, gqlGet('{ pets(limit: 3) { name } }'), key)).json();
      expect(listed.data.pets[1].name).toBe(`Round ${round}`);
    }
  });

  it('drops what a write changed on its own instance at once, yet never serves older than the key\'s write before it elsewhere', async () => {
    const { a, b } = pair;
    const { auth } = await a.newKey('pro');
    for (let round = 0; round < 10; round++) {
      // Both records kept on the first instance; then the key writes through the other, and at once through the first.
      for (const path of ['/v1/pets/1', '/v1/pets/3']) {
        await expect.poll(async () => (await get(a, path, auth)).headers.get('cache-status'), { timeout: 2_500, interval: 20 }).toBe('animal-store; hit');
      }
      await b.patch('/v1/pets/1', { name: `Elsewhere ${round}` }, auth);
      await a.patch('/v1/pets/3', { name: `Here ${round}` }, auth);
      const here = await get(a, '/v1/pets/3', auth);
      expect((await here.json()).name).toBe(`Here ${round}`);
      expect((await (await get(a, '/v1/pets/1', auth)).json()).name).toBe(`Elsewhere ${round}`);
    }
  });

  it('shows another key\'s write within the stream\'s delay', async () => {
    const { a, b } = pair;
    const reader = await b.newKey('pro');
    await get(b, '/v1/pets/3', reader.auth);
    expect((await get(b, '/v1/pets/3', reader.auth)).headers.get('cache-status')).toBe('animal-store; hit');
    const wrote = Date.now();
    await a.patch('/v1/pets/3', { name: 'Seen elsewhere' });
    await expect.poll(async () => (await (await get(b, '/v1/pets/3', reader.auth)).json()).name, { timeout: 1_000, interval: 20 }).toBe('Seen elsewhere');
    expect(Date.now() - wrote).toBeLessThan(1_000);
  });
});

describe('the response cache when its outbox reader cannot read', () => {
  let api: TestServer;
  beforeAll(async () => {
    api = await startServer();
    await api.post('/v1/pets', { name: 'Kept', categoryId: 1 });
  });
  afterAll(async () => { await api?.close(); });

  it('stops serving from the cache, and serves again once the reader has caught up', async () => {
    const path = '/v1/pets/1';
    await get(api, path);
    expect((await get(api, path)).headers.get('cache-status')).toBe('animal-store; hit');
    // The outbox is out of reach (the table gone): the reader fails, and the instance cannot know its entries current.
    await api.store.exec(backend === 'mysql' ? 'RENAME TABLE events TO events_away' : 'ALTER TABLE events RENAME TO events_away');
    try {
      await expect.poll(async () => (await get(api, path)).headers.get('cache-status'), { timeout: 3_000, interval: 50 }).toBe('animal-store; fwd=bypass');
      const during = await get(api, path);
      expect(during.status).toBe(200);
      expect((await during.json()).name).toBe('Kept');
    } finally {
      await api.store.exec(backend === 'mysql' ? 'RENAME TABLE events_away TO events' : 'ALTER TABLE events_away RENAME TO events');
    }
    await expect.poll(async () => {
      await get(api, path);
      return (await get(api, path)).headers.get('cache-status');
    }, { timeout: 3_000, interval: 50 }).toBe('animal-store; hit');
  });
});

// A read that hangs (a lock held on the outbox) rather than fails: MySQL's table locks; SQLite's readers never wait.
describe.runIf(backend === 'mysql')('the response cache when its outbox reader hangs', () => {
  let api: TestServer;
  beforeAll(async () => {
    api = await startServer();
    await api.post('/v1/pets', { name: 'Held', categoryId: 1 });
  });
  afterAll(async () => { await api?.close(); });

  it('stops serving from the cache within its bound, and serves again once the read comes back', async () => {
    const path = '/v1/pets/1';
    await get(api, path);
    expect((await get(api, path)).headers.get('cache-status')).toBe('animal-store; hit');
    await api.store.exec('LOCK TABLES events WRITE');
    const heldAt = Date.now();
    try {
      await expect.poll(async () => (await get(api, path)).headers.get('cache-status'), { timeout: 3_000, interval: 20 }).toBe('animal-store; fwd=bypass');
      // The reader's last read began before the lock: it may be trusted 1 s, no longer.
      expect(Date.now() - heldAt).toBeLessThan(CACHE_FRESH_MS + 500);
      expect((await get(api, path)).status).toBe(200);
    } finally {
      await api.store.exec('UNLOCK TABLES');
    }
    await expect.poll(async () => {
      await get(api, path);
      return (await get(api, path)).headers.get('cache-status');
    }, { timeout: 6_000, interval: 50 }).toBe('animal-store; hit');
  });
});

describe('with the response cache off', () => {
  let api: TestServer;
  beforeAll(async () => { api = await startServer({ env: { RESPONSE_CACHE_MB: '0' } }); });
  afterAll(async () => { await api?.close(); });

  it('still gives validators and free 304s, and never says hit or miss', async () => {
    const first = await get(api, '/v1/pets');
    expect(first.headers.get('cache-status')).toBeNull();
    const tag = first.headers.get('etag')!;
    const again = await get(api, '/v1/pets', { 'if-none-match': tag });
    expect(again.status).toBe(304);
    expect(remaining(again)).toBe(remaining(first));
    expect(again.headers.get('cache-status')).toBeNull();
  });
});
