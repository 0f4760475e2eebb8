import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SUNSET = 'Thu, 05 Dec 2030 00:00:00 GMT';
const DEPRECATED_SINCE = `@${Date.parse('2026-11-21T00:00:00Z') / 1000}`;

let api: TestServer;
let petId: number;
beforeAll(async () => {
  api = await startServer();
  petId = (await api.post('/v1/pets', { name: 'Old client', categoryId: 1 })).body.id;
});
afterAll(async () => { await api?.close(); });

const gql = (auth: Record<string, string>, query: string) => fetch(`${api.url}/graphql`, {
  method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query }),
});

/** The metric's value for Query.pet (0 when the series does not exist): by field only, never by key. */
async function counted(): Promise<number> {
  const text = await (await fetch(`${api.url}/metrics`)).text();
  expect(text).not.toMatch(/deprecated_calls_total\{[^}]*key/);
  return Number(/^animal_store_deprecated_calls_total\{field="Query.pet"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

function keysList(): Promise<{ id: number; deprecatedCalls: number; lastDeprecatedCall: string | null }[]> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['dist/src/cli/keys.js', 'list', '--json'], { cwd: ROOT, env: { PATH: process.env.PATH, ...api.store.env } },
      (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout))));
  });
}

describe('calls of deprecated fields', () => {
  it('tell a GraphQL client as REST tells its own: Deprecation and Sunset headers, and a warning naming the field and its removal date', async () => {
    const { auth } = await api.newKey('free');
    const res = await gql(auth, `{ pet(petId: ${petId}) { id } }`);
    expect(res.status).toBe(200);
    expect(res.headers.get('deprecation')).toBe(DEPRECATED_SINCE);
    expect(res.headers.get('sunset')).toBe(SUNSET);
    expect((await res.json()).extensions.warnings).toEqual([{
      code: 'DEPRECATED_FIELD', field: 'Query.pet', sunset: '2030-12-05T00:00:00Z',
      message: 'Query.pet is deprecated and will be removed on 2030-12-05: Use `pets` with a `status` filter instead. This field will be removed on 2030-12-05.',
    }]);
    const rest = await fetch(`${api.url}/v1/pets/${petId}`, { headers: auth });
    expect([rest.headers.get('deprecation'), rest.headers.get('sunset')]).toEqual([DEPRECATED_SINCE, SUNSET]);
  });

  it('leave an operation without a deprecated field as it was: no headers, no extensions', async () => {
    const res = await gql(api.headers, '{ pets(limit: 1) { id } }');
    expect([res.headers.get('deprecation'), res.headers.get('sunset')]).toEqual([null, null]);
    expect(Object.keys(await res.json())).toEqual(['data']);
  });

  it('find the field through fragments too', async () => {
    const res = await gql(api.headers, `query { ...Old } fragment Old on Query { ... on Query { pet(petId: ${petId}) { name } } }`);
    expect(res.headers.get('sunset')).toBe(SUNSET);
    expect((await res.json()).extensions.warnings[0].field).toBe('Query.pet');
  });

  it('are counted by field in the metric and per key in the key\'s record that `keys list` shows, through REST and GraphQL alike', async () => {
    const before = await counted();
    const a = await api.newKey('pro');
    const b = await api.newKey('pro');
    for (let i = 0; i < 2; i += 1) expect((await fetch(`${api.url}/v1/pets/${petId}`, { headers: a.auth })).status).toBe(200);
    expect((await gql(a.auth, `{ pet(petId: ${petId}) { id } pets { id } }`)).status).toBe(200);
    expect((await gql(b.auth, `{ x: pet(petId: ${petId}) { id } }`)).status).toBe(200);
    // Not a use of the field: refused before it could run (a key without the scope), or another field.
    const restricted = await api.newKey('free', {}, 'orders:read');
    expect((await fetch(`${api.url}/v1/pets/${petId}`, { headers: restricted.auth })).status).toBe(403);
    expect((await gql(a.auth, '{ pets { id } }')).status).toBe(200);

    expect(await counted() - before).toBe(4);
    const text = await (await fetch(`${api.url}/metrics`)).text();
    expect(text).not.toContain(a.key);

    // The record is written in batches: the last when the instance stops.
    await api.stop();
    const rows = await keysList();
    const row = (id: number) => rows.find((r) => r.id === id)!;
    const at = new Date(Math.floor(api.clock.now() / 1000) * 1000).toISOString();
    expect(row(a.id)).toMatchObject({ deprecatedCalls: 3, lastDeprecatedCall: at });
    expect(row(b.id)).toMatchObject({ deprecatedCalls: 1, lastDeprecatedCall: at });
    expect(row(restricted.id)).toMatchObject({ deprecatedCalls: 0, lastDeprecatedCall: null });
  });
});
