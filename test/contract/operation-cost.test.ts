import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
beforeAll(async () => { api = await startServer(); });
afterAll(async () => { await api?.close(); });

const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'));
const aliases = (n: number, field = 'pets(limit: 100) { id name categoryId status }') =>
  `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ')} }`;
/** How many operations /graphql has executed so far (animal_store_graphql_operations_total, all names). */
async function executed(): Promise<number> {
  const text = await (await fetch(`${api.url}/metrics`)).text();
  return [...text.matchAll(/^animal_store_graphql_operations_total\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

describe('points: one per root field on /graphql, one per REST call, from the same windows', () => {
  it('a 2-alias operation takes 2 points, and both surfaces show it on their next response', async () => {
    const { auth } = await api.newKey('free');
    expect(remaining(await api.get('/v1/pets', auth))).toBe(59);
    const two = await api.gql('{ a: pets(limit: 1) { id } b: pets(limit: 2) { id } }', {}, auth);
    expect(two.status).toBe(200);
    expect(two.body.data).toEqual({ a: expect.any(Array), b: expect.any(Array) });
    expect(remaining(two)).toBe(57);
    expect(remaining(await api.get('/v1/pets', auth))).toBe(56);
    expect(remaining(await api.gql('{ pets { id } }', {}, auth))).toBe(55);
  });

  it('fields merged under one response key cost one point, as they run once', async () => {
    const { auth } = await api.newKey('free');
    expect(remaining(await api.gql('{ pets { id } pets { name } }', {}, auth))).toBe(59);
  });

  it('counts GET /graphql the same way', async () => {
    const { auth } = await api.newKey('free');
    const query = encodeURIComponent('{ a: pets { id } b: pets { id } c: pets { id } }');
    const res = await fetch(`${api.url}/graphql?query=${query}`, { headers: { ...auth, accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(remaining(res)).toBe(57);
  });

  it('refuses whole an operation that needs more points than remain: 429, nothing runs', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 5, perDay: 100 });
    for (let i = 0; i < 4; i += 1) expect((await api.get('/v1/pets', auth)).status).toBe(200);
    const before = await executed();
    const create = (name: string) => `${name}: createPet(input: {name: "${name}", categoryId: 77}) { id }`;
    const refused = await api.gql(`mutation { ${create('first')} ${create('second')} }`, {}, auth);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ errors: [{ message: expect.stringContaining('costs 2 points'), extensions: { code: 'RATE_LIMITED', status: 429 } }] });
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await executed()).toBe(before);
    // The refused points were given back: the one that remained is still there.
    const last = await api.gql('mutation { createPet(input: {name: "only", categoryId: 77}) { id } }', {}, auth);
    expect(last.status).toBe(200);
    expect(remaining(last)).toBe(0);
    const pets = await api.get('/v1/pets?limit=100');
    expect(pets.body.filter((p: { categoryId: number }) => p.categoryId === 77).map((p: { name: string }) => p.name)).toEqual(['only']);
  });
});

describe('operation limits, checked before anything runs', () => {
  it('refuses the 600-alias request with 400 before any query runs, charging one point', async () => {
    const { auth } = await api.newKey('free');
    const body = JSON.stringify({ query: aliases(600) });
    expect(body.length).toBeGreaterThan(25_000);
    expect(body.length).toBeLessThan(64 * 1024);
    const before = await executed();
    const res = await fetch(`${api.url}/graphql`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({
      errors: [{ message: 'The document has more than 2000 tokens; the limit is 2000', extensions: { code: 'BAD_REQUEST', status: 400 } }],
    });
    expect(remaining(res)).toBe(59);
    expect(await executed()).toBe(before);
  });

  it.each([
    ['21 root fields', aliases(21, 'pets { id }'), 'The operation selects 21 root fields; the limit is 20 per operation, aliases included'],
    ['depth 9', '{ a { b { c { d { e { f { g { h { i } } } } } } } } }', 'The operation is 9 levels deep; the limit is 8'],
    ['11 directives', `{ pets { ${Array.from({ length: 11 }, (_, i) => `f${i}: id @include(if: true)`).join(' ')} } }`, 'The operation uses 11 directives; the limit is 10'],
  ])('refuses %s with 400 BAD_REQUEST naming the limit', async (_case, query, message) => {
    const before = await executed();
    const res = await api.gql(query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{ message, extensions: { code: 'BAD_REQUEST', status: 400 } }] });
    expect(await executed()).toBe(before);
  });

  it('runs an operation at every limit: 20 root fields with 10 directives, depth 8', async () => {
    const tenDirectives = Array.from({ length: 10 }, (_, i) => `a${i}: pets(limit: 1) { id @include(if: true) }`);
    const plain = Array.from({ length: 10 }, (_, i) => `b${i}: pets(limit: 1) { id }`);
    const res = await api.gql(`{ ${[...tenDirectives, ...plain].join(' ')} }`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toHaveLength(20);
    const deep = await api.gql('{ __schema { types { fields { args { type { fields { type { name } } } } } } } }');
    expect(deep.status).toBe(200);
    expect(deep.body.data.__schema.types.length).toBeGreaterThan(0);
  });

  it('lets a key introspect the schema as GraphiQL does, for one point', async () => {
    const { auth } = await api.newKey('free');
    const res = await api.gql(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, inputValueDeprecation: true }), {}, auth);
    expect(res.status).toBe(200);
    expect(res.body.data.__schema.queryType).toMatchObject({ name: 'Query' });
    expect(remaining(res)).toBe(59);
  });

  it('takes its limits from the settings', async () => {
    const tight = await startServer({ env: { GRAPHQL_MAX_ROOT_FIELDS: '2', GRAPHQL_MAX_DEPTH: '3', GRAPHQL_MAX_TOKENS: '100', GRAPHQL_MAX_DIRECTIVES: '0' } });
    try {
      expect((await tight.gql(aliases(2, 'pets { id }'))).status).toBe(200);
      expect((await tight.gql(aliases(3, 'pets { id }'))).body.errors[0].message).toContain('the limit is 2 per operation');
      expect((await tight.gql('{ pets { id @skip(if: false) } }')).body.errors[0].message).toContain('the limit is 0');
      expect((await tight.gql(aliases(20, 'pets { id }'))).body.errors[0].message).toContain('the limit is 100');
    } finally {
      await tight.close();
    }
  });

  it('holds the operations SOFA runs for REST to the same limits (they are one root field each)', async () => {
    const tight = await startServer({ env: { GRAPHQL_MAX_ROOT_FIELDS: '1', GRAPHQL_MAX_DEPTH: '2', GRAPHQL_MAX_DIRECTIVES: '0' } });
    try {
      expect((await tight.get('/v1/pets')).status).toBe(200);
      expect((await tight.post('/v1/pets', { name: 'Rex', categoryId: 1 })).status).toBe(201);
    } finally {
      await tight.close();
    }
  });
});
