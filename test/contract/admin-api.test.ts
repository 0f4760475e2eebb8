import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { OpenAPIV3 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseChecker } from '../support/openapi-responses.js';
import { startServer, type TestServer } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ALICE = randomBytes(32).toString('hex');
const BOB = randomBytes(32).toString('hex');

let api: TestServer;
let check: ReturnType<typeof responseChecker>;

interface Answer { status: number; headers: Headers; body: any }

/** A call of the admin API, its answer judged by the admin API's own OpenAPI document. */
async function admin(method: string, path: string, { token = ALICE, body, headers = {} }: { token?: string | null; body?: string | object; headers?: Record<string, string> } = {}): Promise<Answer> {
  const url = `${api.adminUrl}${path}`;
  const res = await fetch(url, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  const verdict = check({ method, url, status: res.status, headers: res.headers, text });
  expect(verdict.problems, `${method} ${path} ${res.status}: ${text.slice(0, 200)}`).toEqual([]);
  return { status: res.status, headers: res.headers, body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
}

const expectError = (answer: Answer, status: number, code: string) => {
  expect(answer.status).toBe(status);
  expect(answer.body).toMatchObject({ code, status });
};

beforeAll(async () => {
  api = await startServer({ env: { ADMIN_PORT: '0', ADMIN_TOKENS: `alice:${ALICE},bob:${BOB}`, KEY_CACHE_TTL_SECONDS: '0' } });
  const document = await (await fetch(`${api.adminUrl}/admin/openapi.json`)).json() as OpenAPIV3.Document;
  check = responseChecker(document);
});
afterAll(async () => { await api?.close(); });

describe('the admin API: its way in', () => {
  it('listens on a port of its own, described by its own OpenAPI document, which needs no token', async () => {
    expect(api.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(api.adminUrl).not.toBe(api.url);
    const res = await fetch(`${api.adminUrl}/admin/openapi.json`);
    expect(res.status).toBe(200);
    const document = await res.json();
    expect(document.info.title).toBe('Animal Store admin API');
    expect(Object.keys(document.paths)).toEqual(['/keys', '/keys/{keyId}', '/keys/{keyId}/usage', '/keys/{keyId}/revoke', '/keys/{keyId}/roll', '/audit']);
  });

  it('refuses a call without an operator token, with a wrong one, and with an API key: 401, the Error body, WWW-Authenticate', async () => {
    for (const token of [null, 'x'.repeat(64), api.headers.authorization!.slice('Bearer '.length)]) {
      const answer = await admin('GET', '/admin/keys', { token });
      expectError(answer, 401, 'UNAUTHENTICATED');
      expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="admin"');
      expect(answer.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('is out of an API key\'s reach, and an operator token is no key on the API\'s port', async () => {
    expect((await fetch(`${api.url}/admin/keys`, { headers: api.headers })).status).toBe(404);
    const withToken = await fetch(`${api.url}/v1/pets`, { headers: { authorization: `Bearer ${ALICE}` } });
    expect(withToken.status).toBe(401);
  });

  it('answers an unknown path 404 and a method a path does not take 405 with Allow', async () => {
    expectError(await admin('GET', '/admin/nope'), 404, 'NOT_FOUND');
    const wrong = await admin('DELETE', '/admin/keys');
    expectError(wrong, 405, 'METHOD_NOT_ALLOWED');
    expect(wrong.headers.get('allow')).toBe('GET, HEAD, POST');
  });
});

describe('the admin API: keys', () => {
  it('makes a key that works on the API at once, shown this once, with Location', async () => {
    const made = await admin('POST', '/admin/keys', { body: { plan: 'pro', name: 'billing team', scopes: 'pets:read' } });
    expect(made.status).toBe(201);
    expect(made.body.key).toMatch(/^ask_[0-9A-Za-z]{49}$/);
    expect(made.body.record).toMatchObject({ plan: 'pro', name: 'billing team', scopes: 'pets:read', standing: 'open', perMinute: expect.any(Number) });
    expect(made.headers.get('location')).toBe(`/admin/keys/${made.body.record.id}`);
    expect((await fetch(`${api.url}/v1/pets`, { headers: { authorization: `Bearer ${made.body.key}` } })).status).toBe(200);
    const shown = await admin('GET', `/admin/keys/${made.body.record.id}`);
    // Used once since: its last use is written (to the minute, off the request's path).
    expect(shown.body).toEqual({ ...made.body.record, lastUsed: shown.body.lastUsed });
    expect(JSON.stringify(shown.body)).not.toContain(made.body.key.slice(12));
    const listed = await admin('GET', '/admin/keys');
    expect(listed.body.keys.map((key: { id: number }) => key.id)).toContain(made.body.record.id);
    const usage = await admin('GET', `/admin/keys/${made.body.record.id}/usage`);
    expect(usage.body).toMatchObject({ id: made.body.record.id, standing: 'open', deprecatedCalls: 0 });
  });

  it.each([
    ['no plan', { name: 'x' }, 'plan is required'],
    ['an unknown plan', { plan: 'gold' }, 'Unknown plan "gold"'],
    ['an unknown field', { plan: 'free', owner: 'me' }, 'Unknown field "owner"'],
    ['a field of the wrong type', { plan: 'free', name: 7 }, 'name must be a string'],
    ['limits on a fixed plan', { plan: 'free', perMinute: 5 }, 'fixed limits'],
    ['enterprise without limits', { plan: 'enterprise' }, 'needs its own limits'],
    ['an unknown scope', { plan: 'free', scopes: 'pets:eat' }, 'Unknown scope "pets:eat"'],
    ['both ends', { plan: 'free', expiresIn: '1d', expiresAt: '2099-01-01T00:00:00Z' }, 'not both'],
    ['a past end', { plan: 'free', expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt must be in the future'],
    ['a bad duration', { plan: 'free', expiresIn: 'soon' }, 'expiresIn must be a duration'],
    ['a body that is no object', [1, 2], 'must be a JSON object'],
  ])('refuses %s with 400 BAD_REQUEST naming it', async (_case, body, message) => {
    const answer = await admin('POST', '/admin/keys', { body });
    expectError(answer, 400, 'BAD_REQUEST');
    expect(answer.body.message).toContain(message);
  });

  it('refuses a body that is not JSON (415) or not well-formed (400), and a bad key id (400) or an unknown one (404)', async () => {
    expectError(await admin('POST', '/admin/keys', { body: 'plan=free', headers: { 'content-type': 'text/plain' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await admin('POST', '/admin/keys', { body: '{"plan":' }), 400, 'BAD_REQUEST');
    expectError(await admin('GET', '/admin/keys/abc'), 400, 'BAD_REQUEST');
    expectError(await admin('GET', '/admin/keys/0'), 400, 'BAD_REQUEST');
    expectError(await admin('GET', '/admin/keys/99999999'), 404, 'NOT_FOUND');
    expectError(await admin('GET', '/admin/keys/99999999/usage'), 404, 'NOT_FOUND');
    expectError(await admin('POST', '/admin/keys/99999999/revoke'), 404, 'NOT_FOUND');
    expectError(await admin('GET', '/admin/keys?x=1'), 400, 'BAD_REQUEST');
  });

  it('revokes a key (once: a second revoke says so) and rolls one, the old ending after the overlap', async () => {
    const first = (await admin('POST', '/admin/keys', { body: { plan: 'free' } })).body;
    const revoked = await admin('POST', `/admin/keys/${first.record.id}/revoke`);
    expect(revoked.body).toMatchObject({ alreadyRevoked: false, record: { id: first.record.id, standing: 'revoked' } });
    expect((await fetch(`${api.url}/v1/pets`, { headers: { authorization: `Bearer ${first.key}` } })).status).toBe(401);
    expect((await admin('POST', `/admin/keys/${first.record.id}/revoke`)).body.alreadyRevoked).toBe(true);
    expectError(await admin('POST', `/admin/keys/${first.record.id}/roll`), 409, 'CONFLICT');

    const second = (await admin('POST', '/admin/keys', { body: { plan: 'pro', name: 'rolled' } })).body;
    const rolled = await admin('POST', `/admin/keys/${second.record.id}/roll?overlapSeconds=0`);
    expect(rolled.status).toBe(201);
    expect(rolled.body.record).toMatchObject({ plan: 'pro', name: 'rolled', standing: 'open' });
    expect(rolled.body.predecessor.id).toBe(second.record.id);
    expect((await fetch(`${api.url}/v1/pets`, { headers: { authorization: `Bearer ${rolled.body.key}` } })).status).toBe(200);
    expectError(await admin('POST', `/admin/keys/${second.record.id}/roll?overlapSeconds=-5`), 400, 'BAD_REQUEST');
  });
});

describe('the admin API: its audit log', () => {
  it('records every call, refused ones too: who, what, when, from where, its request id and status; newest first, in pages', async () => {
    const made = (await admin('POST', '/admin/keys', { body: { plan: 'free' }, headers: { 'x-request-id': 'audit-create-1' } })).body;
    await admin('GET', `/admin/keys/${made.record.id}`, { token: BOB, headers: { 'x-request-id': 'audit-show-1' } });
    await admin('POST', '/admin/keys', { body: { plan: 'gold' }, headers: { 'x-request-id': 'audit-refused-1' } });
    await admin('GET', '/admin/keys', { token: null, headers: { 'x-request-id': 'audit-anonymous-1' } });

    const page = await admin('GET', '/admin/audit?limit=3');
    const [refused, shown, created] = page.body.entries;
    expect(created).toMatchObject({ actor: 'alice', action: 'key.create', keyId: made.record.id, origin: '127.0.0.1', requestId: 'audit-create-1', outcome: 201 });
    expect(shown).toMatchObject({ actor: 'bob', action: 'key.show', keyId: made.record.id, requestId: 'audit-show-1', outcome: 200 });
    expect(refused).toMatchObject({ actor: 'alice', action: 'key.create', keyId: null, requestId: 'audit-refused-1', outcome: 400 });
    // The call without a token never reached the log.
    expect(page.body.entries.map((entry: { requestId: string }) => entry.requestId)).not.toContain('audit-anonymous-1');
    expect(new Date(created.at).getTime()).toBeLessThanOrEqual(Date.now());

    const again = await admin('GET', '/admin/audit?limit=2');
    expect(again.body.entries[0]).toMatchObject({ action: 'audit.list', outcome: 200 });
    expect(again.body.next).toBe(`/admin/audit?limit=2&before=${again.body.entries[1].id}`);
    const next = await admin('GET', again.body.next);
    expect(next.body.entries[0].id).toBeLessThan(again.body.entries[1].id);
    for (const bad of ['limit=0', 'limit=101', 'before=x', 'limit=1&limit=2', 'sort=asc']) expectError(await admin('GET', `/admin/audit?${bad}`), 400, 'BAD_REQUEST');
  });

  it('records the keys command\'s calls too, through the same code', async () => {
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, ['dist/src/cli/keys.js', 'list', '--json'], { cwd: ROOT, env: { PATH: process.env.PATH, ...api.store.env } },
        (error) => (error ? reject(error) : resolve()));
    });
    const { entries } = (await admin('GET', '/admin/audit?limit=5')).body;
    expect(entries.find((entry: { actor: string }) => entry.actor.startsWith('cli:'))).toMatchObject({ action: 'key.list', origin: 'local', outcome: 200, requestId: null });
  });
});
