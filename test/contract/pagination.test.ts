import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend } from '../support/backend.js';
import { rateLimited } from '../support/rate-limited.js';
import { startServer, type TestServer } from '../support/server.js';

/** The server of the cases that need no settings or store of their own (the Relay ones). */
let api: TestServer;
beforeAll(async () => { api = await startServer(); });
afterAll(async () => { await api?.close(); });

/** The target of a `Link: <...>; rel="next"` header, or null. */
const nextOf = (headers: Headers) => /^<([^>]+)>; rel="next"$/.exec(headers.get('link') ?? '')?.[1] ?? null;
const cursorOf = (link: string) => new URL(link, 'http://x').searchParams.get('cursor')!;

/** Every page of a list, following Link headers from `first`. */
async function walk(server: TestServer, first: string, onPage: () => Promise<void> = async () => {}) {
  const ids: number[] = [];
  let pages = 0;
  for (let next: string | null = first; next; pages += 1) {
    const res = await server.get(next);
    expect(res.status, next).toBe(200);
    ids.push(...res.body.map((r: { id: number }) => r.id));
    next = nextOf(res.headers);
    await onPage();
  }
  return { ids, pages };
}

/** `n` pets written straight into the store: a large table without n requests. */
async function seedPets(server: TestServer, n: number, status = 'available') {
  const digits = '(SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)';
  const number = 'a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d';
  await server.store.exec(`INSERT INTO pets (name, category_id, status) SELECT 'Seeded', 1, '${status}' FROM ${digits} a, ${digits} b, ${digits} c, ${digits} e, ${digits} f WHERE ${number} < ${n}`);
}

describe('cursor pages over REST', () => {
  let mine: TestServer;
  beforeAll(async () => {
    mine = await startServer({ env: { CORS_ORIGINS: 'https://app.example' } });
    for (let i = 0; i < 7; i += 1) await mine.post('/v1/pets', { name: `Paged ${i}`, categoryId: 1, status: i % 2 ? 'sold' : 'available' });
  });
  afterAll(async () => { await mine?.close(); });

  it('links the next page, keeping the limit and the filter, until the last page, which has no link', async () => {
    const first = await mine.get('/v1/pets?limit=2&status=sold');
    expect(first.body.map((p: { status: string }) => p.status)).toEqual(['sold', 'sold']);
    const link = nextOf(first.headers)!;
    expect(link).toMatch(/^\/v1\/pets\?limit=2&status=sold&cursor=[\w-]+\.[\w-]+$/);
    const { ids, pages } = await walk(mine, '/v1/pets?limit=2&status=sold');
    expect(ids).toHaveLength(3);
    expect(pages).toBe(2);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const all = await walk(mine, '/v1/pets?limit=3');
    expect(all.ids).toEqual((await mine.get('/v1/pets?limit=100')).body.map((p: { id: number }) => p.id));
    // A full last page may still link to an empty one: "there may be more" is all a link promises.
    expect(nextOf((await mine.get('/v1/pets?limit=100')).headers)).toBeNull();
    // An empty parameter is no parameter (as SOFA reads a query), and the link keeps the order it was given.
    expect((await mine.get('/v1/pets?limit=100&status=')).body).toEqual((await mine.get('/v1/pets?limit=100')).body);
    const again = nextOf((await mine.get(`/v1/pets?cursor=${cursorOf(nextOf((await mine.get('/v1/pets?limit=1&status=sold')).headers)!)}&status=sold&limit=1`)).headers);
    expect(again).toMatch(/^\/v1\/pets\?cursor=[\w-]+\.[\w-]+&status=sold&limit=1$/);
  });

  it('pages orders the same way', async () => {
    const pets = (await mine.get('/v1/pets?status=available')).body;
    for (const pet of pets) await mine.post('/v1/store/orders', { petId: pet.id });
    const { ids, pages } = await walk(mine, '/v1/store/orders?limit=3');
    expect(ids).toHaveLength(pets.length);
    expect(pages).toBe(Math.ceil(pets.length / 3));
    expect(nextOf((await mine.get('/v1/store/orders?limit=3')).headers)).toMatch(/^\/v1\/store\/orders\?limit=3&cursor=/);
  });

  it('refuses a corrupt, forged or mismatched cursor with a 400 that says which', async () => {
    const link = nextOf((await mine.get('/v1/pets?limit=2')).headers)!;
    const cursor = cursorOf(link);
    const [payload, mac] = cursor.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ l: 'pets', s: null, a: 1 })).toString('base64url');
    for (const [query, message] of [
      ['cursor=abc', /malformed/],
      [`cursor=${'x'.repeat(300)}`, /"cursor"/],
      [`cursor=${payload}`, /malformed/],
      [`cursor=${forgedPayload}.${mac}`, /not issued by this service/],
      [`cursor=${payload}.${'A'.repeat(22)}`, /not issued by this service/],
      [`status=sold&cursor=${cursor}`, /made for no filter, not status "sold"/],
      [`cursor=${cursor}&cursor=${cursor}`, /cursor/],
    ] as const) {
      const res = await mine.get(`/v1/pets?limit=2&${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body).toMatchObject({ code: 'BAD_REQUEST', status: 400, message: expect.stringMatching(message) });
      rateLimited(res.headers);
    }
    const orders = await mine.get(`/v1/store/orders?cursor=${cursor}`);
    expect(orders.status).toBe(400);
    expect(orders.body.message).toMatch(/list of pets, not of orders/);
  });

  it('lets a browser read the Link header', async () => {
    const res = await fetch(`${mine.url}/v1/pets?limit=1`, { headers: { ...mine.headers, origin: 'https://app.example' } });
    expect(res.headers.get('access-control-expose-headers')).toMatch(/\bLink\b/);
  });
});

describe('Relay connections over GraphQL', () => {
  it('pages with first/after and Relay\'s whole pageInfo, with the same cursors as REST', async () => {
    // Its own pets only, and no orders: the other case on this server only adds pets after it (at most 10 in all).
    for (let i = 0; i < 5; i += 1) await api.post('/v1/pets', { name: `Edge ${i}`, categoryId: 1 });
    const query = 'query($after: Cursor) { petsConnection(first: 2, after: $after) { edges { cursor node { id name } } '
      + 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }';
    const seen: number[] = [];
    let after: string | null = null;
    for (let page = 0; page < 5; page += 1) {
      const res: { body: any } = await api.gql(query, { after });
      const { edges, pageInfo } = res.body.data.petsConnection;
      seen.push(...edges.map((e: { node: { id: number } }) => e.node.id));
      expect(pageInfo.endCursor).toBe(edges.at(-1)?.cursor ?? null);
      expect(pageInfo.startCursor).toBe(edges[0]?.cursor ?? null);
      // Forward only: Relay lets hasPreviousPage be false when paging with first/after.
      expect(pageInfo.hasPreviousPage).toBe(false);
      if (!pageInfo.hasNextPage) break;
      after = pageInfo.endCursor;
    }
    expect(seen).toEqual((await api.get('/v1/pets')).body.map((p: { id: number }) => p.id));
    // A REST cursor is a connection cursor, and the other way round.
    const link = nextOf((await api.get('/v1/pets?limit=2')).headers)!;
    const viaRest = await api.gql(query, { after: cursorOf(link) });
    expect(viaRest.body.data.petsConnection.edges[0].node.id).toBe(seen[2]);
    const edgeCursor = (await api.gql(query, {})).body.data.petsConnection.edges[0].cursor;
    expect((await api.get(`/v1/pets?limit=1&cursor=${edgeCursor}`)).body[0].id).toBe(seen[1]);

    const orders = await api.gql('{ ordersConnection(status: placed) { edges { node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }');
    expect(orders.body.data.ordersConnection).toEqual({ edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null } });
    for (const [first, code] of [[0, 'BAD_REQUEST'], [101, 'BAD_REQUEST']] as const) {
      const res = await api.gql(`{ petsConnection(first: ${first}) { edges { cursor } } }`);
      expect(res.body.errors[0].extensions.code).toBe(code);
    }
    const mismatched = await api.gql(query.replace('first: 2', 'first: 2, status: sold'), { after: cursorOf(link) });
    expect(mismatched.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_REQUEST' }, message: expect.stringMatching(/made for no filter/) });
  });

  it('takes a cursor from one instance on another (the signing secret lives in the database)', async () => {
    const a = api;
    const b = await startServer({ store: a.shared.store, clock: a.shared.clock, env: a.shared.env });
    try {
      for (let i = 0; i < 3; i += 1) await a.post('/v1/pets', { name: `Shared ${i}`, categoryId: 1 });
      const link = nextOf((await a.get('/v1/pets?limit=1')).headers)!;
      const res = await b.get(link);
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(1);
    } finally {
      await b.stop();
    }
  });
});

describe('walking 10,000 pets while others write', () => {
  it('returns every pet that existed at the start exactly once, in id order', async () => {
    const server = await startServer();
    try {
      await seedPets(server, 10_000);
      const before = await walk(server, '/v1/pets?limit=100');
      expect(before.ids).toHaveLength(10_000);
      const existing = new Set(before.ids);
      let writes = 0;
      // Each page is followed by writes from another client: new pets, renamed ones, sold ones.
      const { ids, pages } = await walk(server, '/v1/pets?limit=100', async () => {
        const target = before.ids[(writes * 97) % before.ids.length]!;
        await Promise.all([
          server.post('/v1/pets', { name: `Inserted ${writes}`, categoryId: 2 }),
          server.patch(`/v1/pets/${target}`, { name: `Renamed ${writes}` }),
          server.post('/v1/store/orders', { petId: before.ids[(writes * 31 + 7) % before.ids.length] }),
        ]);
        writes += 1;
      });
      expect(pages).toBeGreaterThanOrEqual(100);
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.filter((id) => existing.has(id))).toEqual(before.ids);
    } finally {
      await server.close();
    }
  }, backend === 'mysql' ? 120_000 : 60_000);
});
