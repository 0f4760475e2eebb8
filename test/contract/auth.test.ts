import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeKey } from '../../src/auth/key-admin.js';
import { apiKeyStore } from '../../src/db/api-keys.js';
import { openStore } from '../support/backend.js';
import { rateLimited } from '../support/rate-limited.js';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
beforeAll(async () => { api = await startServer({ env: { KEY_CACHE_TTL_SECONDS: '1' } }); });
afterAll(async () => { await api?.close(); });

/** Every operation of both surfaces, as a request with the given Authorization header. */
const operations: [string, (auth: Record<string, string>) => Promise<Response>][] = [
  ['GET /v1/pets', (auth) => fetch(`${api.url}/v1/pets`, { headers: auth })],
  ['POST /v1/pets', (auth) => fetch(`${api.url}/v1/pets`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"name":"x","categoryId":1}' })],
  ['GET /v1/pets/1', (auth) => fetch(`${api.url}/v1/pets/1`, { headers: auth })],
  ['POST /graphql query', (auth) => fetch(`${api.url}/graphql`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"query":"{ pets { id } }"}' })],
  ['POST /graphql mutation', (auth) => fetch(`${api.url}/graphql`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"query":"mutation { createPet(input: {name: \\"x\\", categoryId: 1}) { id } }"}' })],
  ['GET /graphql?query', (auth) => fetch(`${api.url}/graphql?query=${encodeURIComponent('{ pets { id } }')}`, { headers: { ...auth, accept: 'application/json' } })],
];

async function expect401(res: Response, graphql: boolean, invalidToken: boolean) {
  expect(res.status).toBe(401);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('www-authenticate')).toBe(`Bearer realm="animal-store"${invalidToken ? ', error="invalid_token"' : ''}`);
  rateLimited(res.headers);
  const body = await res.json();
  if (graphql) expect(body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'UNAUTHENTICATED', status: 401 } }] });
  else expect(body).toEqual({ code: 'UNAUTHENTICATED', message: expect.any(String), status: 401 });
}

describe('authentication', () => {
  const unknownKey = `ask_${'A'.repeat(43)}`;
  const bad: [string, Record<string, string>, boolean][] = [
    ['no Authorization header', {}, false],
    ['Basic credentials', { authorization: 'Basic dXNlcjpwYXNz' }, false],
    ['Bearer with no key', { authorization: 'Bearer' }, false],
    ['Bearer and spaces only', { authorization: 'Bearer   ' }, false],
    ['an unknown key', { authorization: `Bearer ${unknownKey}` }, true],
    ['a malformed key', { authorization: 'Bearer not-a-key' }, true],
  ];
  for (const [operation, send] of operations) {
    it.each(bad)(`${operation} with %s answers 401 UNAUTHENTICATED`, async (_case, auth, invalid) => {
      await expect401(await send(auth), operation.includes('graphql'), invalid);
    });
  }

  it.each(operations)('%s accepts the scheme in any case', async (_operation, send) => {
    const key = api.headers.authorization!.slice('Bearer '.length);
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      const res = await send({ authorization: `${scheme} ${key}` });
      expect(res.status).toBeLessThan(300);
    }
  });

  it('stops accepting a revoked key within KEY_CACHE_TTL_SECONDS', async () => {
    const { key, auth } = await api.newKey('free');
    expect((await api.get('/v1/pets', auth)).status).toBe(200);
    const admin = await openStore(api.store);
    try {
      expect(await revokeKey(apiKeyStore(admin), key)).toMatchObject({ revokedAt: null });
    } finally {
      await admin.destroy();
    }
    // The lookup is trusted for KEY_CACHE_TTL_SECONDS (1 s here), and not a moment longer.
    api.clock.advance(999);
    expect((await api.get('/v1/pets', auth)).status).toBe(200);
    api.clock.advance(1);
    for (const [operation, send] of operations) await expect401(await send(auth), operation.includes('graphql'), true);
  });

  it.each([
    ['GET /v1/openapi.json', '/v1/openapi.json', {}],
    ['GET /graphql in a browser (GraphiQL)', '/graphql', { accept: 'text/html' }],
    ['GET /healthz', '/healthz', {}],
    ['GET /readyz', '/readyz', {}],
  ])('%s needs no key', async (_case, path, headers) => {
    expect((await fetch(`${api.url}${path}`, { headers })).status).toBe(200);
  });
});
