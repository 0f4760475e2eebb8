import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { OpenAPIV3 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wire } from '../../support/arbitraries/deep.js';
import { anyJson, oddText } from '../../support/arbitraries/rest.js';
import { fuzzParameters } from '../../support/fuzz.js';
import { responseChecker } from '../../support/openapi-responses.js';
import { startServer, type TestServer } from '../../support/server.js';

const TOKEN = randomBytes(32).toString('hex');
let api: TestServer;
let check: ReturnType<typeof responseChecker>;

beforeAll(async () => {
  api = await startServer({ env: { ADMIN_PORT: '0', ADMIN_TOKENS: `ops:${TOKEN}` } });
  check = responseChecker(await (await fetch(`${api.adminUrl}/admin/openapi.json`)).json() as OpenAPIV3.Document);
});
afterAll(async () => { await api?.close(); });

/** A path segment of any text (a lone surrogate becomes U+FFFD, as a client's encoder makes it). */
const encoded = (text: string) => encodeURIComponent(Buffer.from(text).toString());

const keyId = fc.oneof(fc.integer({ min: 1, max: 5 }).map(String), fc.constantFrom('0', '-1', 'abc', '9007199254740993', '1e3', '%00', '..'), oddText.map(encoded));
const path = fc.oneof(
  fc.constant('/admin/keys'), fc.constant('/admin/audit'),
  keyId.map((id) => `/admin/keys/${id}`), keyId.map((id) => `/admin/keys/${id}/usage`),
  keyId.map((id) => `/admin/keys/${id}/revoke`), keyId.map((id) => `/admin/keys/${id}/roll`),
  oddText.map((text) => `/admin/${encoded(text)}`),
);
const query = fc.array(fc.tuple(fc.constantFrom('limit', 'before', 'overlapSeconds', 'x'), fc.oneof(fc.integer({ min: -5, max: 200 }).map(String), oddText)), { maxLength: 3 })
  .map((pairs) => (pairs.length ? `?${new URLSearchParams(pairs)}` : ''));
const keyBody = fc.record({
  plan: fc.oneof(fc.constantFrom('free', 'pro', 'enterprise', 'gold'), oddText, anyJson),
  name: fc.oneof(fc.string({ maxLength: 300 }), anyJson),
  perMinute: fc.oneof(fc.integer(), anyJson), perDay: fc.oneof(fc.integer(), anyJson),
  scopes: fc.oneof(fc.constantFrom('pets:read', 'orders:read webhooks', 'pets:eat'), oddText),
  expiresIn: fc.oneof(fc.constantFrom('1d', '0', '99999999d'), oddText), expiresAt: fc.oneof(fc.date().map((date) => (Number.isNaN(date.getTime()) ? 'x' : date.toISOString())), oddText),
  extra: anyJson,
}, { requiredKeys: [] });
const body = fc.oneof(keyBody.map(wire), anyJson.map(wire), oddText);
const authorization = fc.oneof(fc.constant(`Bearer ${TOKEN}`), fc.constant(`Bearer ${TOKEN}`), fc.constant(undefined), fc.stringMatching(/^[\x21-\x7e]{0,80}$/).map((text) => `Bearer ${text}`), fc.constant(`Bearer ${TOKEN}x`));

const keyCount = async () => ((await (await fetch(`${api.adminUrl}/admin/keys`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { keys: unknown[] }).keys.length;

describe('the admin API, any request (property)', () => {
  it('never answers 5xx, every answer as its document says, and makes a key only with a 201', async () => {
    await fc.assert(fc.asyncProperty(
      fc.record({ method: fc.constantFrom('GET', 'POST', 'POST', 'PATCH', 'DELETE'), path, query, body: fc.option(body, { nil: undefined }), authorization }),
      async (req) => {
        const before = await keyCount();
        const url = `${api.adminUrl}${req.path}${req.query}`;
        const res = await fetch(url, {
          method: req.method,
          headers: { ...(req.authorization ? { authorization: req.authorization } : {}), ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(req.body !== undefined && req.method !== 'GET' ? { body: req.body } : {}),
        });
        const text = await res.text();
        const context = `${JSON.stringify(req)} → ${res.status} ${text.slice(0, 200)}`;
        expect(res.status, context).toBeLessThan(500);
        expect(check({ method: req.method, url, status: res.status, headers: res.headers, text }).problems, context).toEqual([]);
        if (res.status >= 400) expect(JSON.parse(text), context).toMatchObject({ code: expect.any(String), status: res.status });
        const made = res.status === 201 ? 1 : 0;
        expect(await keyCount(), context).toBe(before + made);
      },
    ), { ...fuzzParameters, numRuns: Math.min(fuzzParameters.numRuns ?? 500, 500) });
  }, 600_000);
});
