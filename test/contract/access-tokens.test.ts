import { generateKeyPair, exportJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globalId } from '../../src/domain/global-ids.js';
import { seriesValue } from '../support/metrics.js';
import { startIssuer, type TestIssuer } from '../support/oidc-issuer.js';
import { rateLimited } from '../support/rate-limited.js';
import { startServer, type TestServer } from '../support/server.js';

let issuer: TestIssuer;
let api: TestServer;
beforeAll(async () => {
  issuer = await startIssuer({ clients: ['app-1', 'app-2', 'app-3', 'app-4'] });
  api = await startServer({
    env: { JWT_ISSUERS: issuer.issuer, JWT_AUDIENCE: issuer.audience, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_ALLOW_HTTP: 'true' },
  });
});
afterAll(async () => {
  await api?.close();
  await issuer?.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const get = (path: string, token: string) => fetch(`${api.url}${path}`, { headers: bearer(token) });
const send = (method: string, path: string, token: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${api.url}${path}`, { method, headers: { ...bearer(token), 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

async function expectRefused(res: Response, message: RegExp) {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer realm="animal-store", error="invalid_token"');
  rateLimited(res.headers);
  const body = await res.json();
  expect(body).toEqual({ code: 'UNAUTHENTICATED', message: expect.any(String), status: 401 });
  expect(body.message).toMatch(message);
}

describe('a token from the provider', () => {
  it('reads and writes on REST and GraphQL, under the plan\'s limits (free: 60 a minute)', async () => {
    const token = await issuer.token('app-1', { scope: 'pets:read pets:write' });
    const created = await send('POST', '/v1/pets', token, { name: 'Token', categoryId: 1 });
    expect(created.status).toBe(201);
    const read = await get(`/v1/pets/${(await created.json()).id}`, token);
    expect(read.status).toBe(200);
    expect(read.headers.get('x-ratelimit-limit')).toBe('60');
    const gql = await send('POST', '/graphql', token, { query: '{ pets(limit: 1) { id } }' });
    expect(gql.status).toBe(200);
    expect((await gql.json()).data.pets).toHaveLength(1);
  });

  it('is verified once: its later calls take no fetch of the keys', async () => {
    const token = await issuer.token('app-1', { scope: 'pets:read' });
    const before = { ...issuer.fetches };
    for (let i = 0; i < 5; i += 1) expect((await get('/v1/pets?limit=1', token)).status).toBe(200);
    expect(issuer.fetches).toEqual(before);
  });
});

describe('refused tokens: 401 invalid_token, counted by reason', () => {
  const cases: [string, () => Promise<string>, RegExp, string][] = [
    ['expired', () => issuer.sign({ exp: Math.floor(Date.now() / 1000) - 120, iat: Math.floor(Date.now() / 1000) - 600 }), /expired/, 'token_expired'],
    ['not yet valid (nbf)', () => issuer.sign({ nbf: Math.floor(Date.now() / 1000) + 600 }), /not valid yet/, 'token_not_yet_valid'],
    ['issued in the future (iat)', () => issuer.sign({ iat: Math.floor(Date.now() / 1000) + 600 }), /future/, 'token_not_yet_valid'],
    ['for another API (aud)', () => issuer.sign({ aud: 'https://other.example' }), /audience/, 'token_audience'],
    ['from an issuer not trusted', () => issuer.sign({ iss: 'https://evil.example' }), /issuer/, 'token_issuer'],
    ['without exp', () => issuer.sign({ exp: undefined }), /claims/, 'token_claims'],
    ['without sub and client_id', () => issuer.sign({ sub: undefined, client_id: undefined }), /subject/, 'token_claims'],
    ['of another type (typ)', () => issuer.sign({}, { header: { typ: 'dpop+jwt' } }), /type/, 'token_claims'],
    ['alg none', () => issuer.sign({}, { alg: 'none' }), /algorithm|malformed/, 'token_algorithm'],
    ['tampered (signature)', async () => {
      const [head, , signature] = (await issuer.sign({})).split('.');
      const forged = Buffer.from(JSON.stringify({ iss: issuer.issuer, aud: issuer.audience, sub: 'admin', exp: Math.floor(Date.now() / 1000) + 600 })).toString('base64url');
      return `${head}.${forged}.${signature}`;
    }, /signature/, 'token_signature'],
    ['with an unknown critical header', () => issuer.sign({}, { header: { crit: ['x-custom'], 'x-custom': 1 } }), /malformed/, 'token_malformed'],
    ['longer than 8,192 characters', () => issuer.sign({ padding: 'x'.repeat(9_000) }), /longer/, 'token_malformed'],
    ['not a JWT at all', async () => 'eyJhbGciOiJFUzI1NiJ9.bm90IGpzb24.c2ln', /readable/, 'token_malformed'],
  ];

  it.each(cases)('%s', async (_, make, message, reason) => {
    const token = await make();
    await expectRefused(await get('/v1/pets', token), message);
    const metrics = await (await fetch(`${api.url}/metrics`)).text();
    expect(seriesValue(metrics, 'animal_store_auth_failures_total', { reason })).toBeGreaterThanOrEqual(1);
  });

  it('algorithm confusion: HS256 signed with the issuer\'s public key as the secret', async () => {
    const jwks = await (await fetch(`${issuer.issuer}/jwks`)).json() as { keys: { kid: string }[] };
    const published = jwks.keys.find((key) => key.kid === issuer.kid)!;
    const secret = new TextEncoder().encode(JSON.stringify(published));
    await expectRefused(await get('/v1/pets', await issuer.sign({}, { alg: 'HS256', key: secret, header: { kid: issuer.kid } })), /algorithm/);
  });

  it('keys named in the token are never used: jwk, jku, x5u, x5c', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(publicKey);
    const stranger = { key: privateKey, alg: 'ES256' } as const;
    for (const header of [{ jwk }, { jku: 'http://127.0.0.1:1/jwks', kid: 'mine' }, { x5u: 'http://127.0.0.1:1/cert', kid: 'mine' }, { x5c: ['MIIB'], kid: 'mine' }]) {
      await expectRefused(await get('/v1/pets', await issuer.sign({}, { ...stranger, header })), /does not publish|signature/);
    }
    // The issuer's own kid on a stranger's signature.
    await expectRefused(await get('/v1/pets', await issuer.sign({}, { ...stranger, header: { kid: issuer.kid } })), /signature/);
  });

  it('a key is still a key: an unknown one is refused as before', async () => {
    const res = await get('/v1/pets', `ask_${'A'.repeat(43)}`);
    expect(res.status).toBe(401);
    expect((await res.json()).message).toBe('The API key is unknown or revoked');
  });
});

describe('who the caller is', () => {
  it('scopes come from the token; without the claim, reads only', async () => {
    const reader = await issuer.token('app-2', { scope: 'pets:read' });
    expect((await get('/v1/pets', reader)).status).toBe(200);
    const refused = await send('POST', '/v1/pets', reader, { name: 'No', categoryId: 1 });
    expect(refused.status).toBe(403);
    expect((await refused.json()).message).toContain('pets:write');
    const bare = await issuer.sign({ scope: undefined, sub: 'bare-user' });
    expect((await get('/v1/store/orders', bare)).status).toBe(200);
    expect((await send('POST', '/v1/pets', bare, { name: 'No', categoryId: 1 })).status).toBe(403);
    expect((await get('/v1/webhooks', bare)).status).toBe(403);
  });

  it('each subject has its own windows; two tokens of one subject share them', async () => {
    const first = await issuer.sign({ sub: 'counted-a', scope: 'pets:read' });
    const second = await issuer.sign({ sub: 'counted-a', scope: 'pets:read', jti: 'another' });
    const other = await issuer.sign({ sub: 'counted-b', scope: 'pets:read' });
    const remaining = async (token: string) => Number((await get('/v1/pets?limit=1', token)).headers.get('x-ratelimit-remaining'));
    const a1 = await remaining(first);
    expect(await remaining(second)).toBe(a1 - 1);
    expect(await remaining(other)).toBe(59);
  });

  it('a machine token without sub is its client', async () => {
    const machine = await issuer.sign({ sub: undefined, client_id: 'app-3', scope: 'pets:read' });
    const client = await issuer.sign({ sub: undefined, client_id: 'app-3', scope: 'pets:read', jti: 'again' });
    const first = Number((await get('/v1/pets?limit=1', machine)).headers.get('x-ratelimit-remaining'));
    expect(Number((await get('/v1/pets?limit=1', client)).headers.get('x-ratelimit-remaining'))).toBe(first - 1);
  });

  it('what a subject creates is its own: another subject and a key do not see it', async () => {
    const owner = await issuer.sign({ sub: 'owner', scope: 'webhooks pets:read orders:read' });
    const stranger = await issuer.sign({ sub: 'stranger', scope: 'webhooks pets:read orders:read' });
    const created = await send('POST', '/v1/webhooks', owner, { url: 'http://127.0.0.1:9/hook' });
    expect(created.status).toBe(201);
    const { id } = await created.json();
    expect((await get(`/v1/webhooks/${id}`, owner)).status).toBe(200);
    expect((await get(`/v1/webhooks/${id}`, stranger)).status).toBe(404);
    expect((await (await get('/v1/webhooks', stranger)).json()).data ?? []).toEqual([]);
    const { key } = await api.newKey('free');
    expect((await get(`/v1/webhooks/${id}`, key)).status).toBe(404);
    // Through GraphQL's node, by GET twice (what the response cache would keep), then by the other subject of equal scopes.
    const query = `{ node(id: "${globalId('WebhookEndpoint', id)}") { nodeId } }`;
    const read = (token: string) => get(`/graphql?query=${encodeURIComponent(query)}`, token).then((res) => res.json());
    await read(owner);
    expect((await read(owner)).data.node).toEqual({ nodeId: globalId('WebhookEndpoint', id) });
    expect((await read(stranger)).data.node).toBeNull();
  });

  it('idempotency records are per subject', async () => {
    const one = await issuer.sign({ sub: 'idem-1', scope: 'pets:write' });
    const two = await issuer.sign({ sub: 'idem-2', scope: 'pets:write' });
    const headers = { 'idempotency-key': 'same-key-for-both' };
    const a = await send('POST', '/v1/pets', one, { name: 'One', categoryId: 1 }, headers);
    const b = await send('POST', '/v1/pets', two, { name: 'Two', categoryId: 1 }, headers);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect((await b.json()).name).toBe('Two');
  });
});
