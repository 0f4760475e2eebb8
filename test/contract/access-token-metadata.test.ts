import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

/**
 * Where a provider's keys are found, beyond the OpenID provider the other token tests start: RFC 8414
 * metadata alone (an OAuth server without OpenID discovery), and metadata that must not be believed.
 */
const AUDIENCE = 'https://api.animal-store.test';
let provider: Server;
let base: string;
let sign: (issuer: string) => Promise<string>;
/** What each issuer path's metadata says, set by each test. */
const metadata = new Map<string, Record<string, unknown>>();
/** Issuer paths that answer 503 to everything (up, but failing), and how often each was asked. */
const failing = new Map<string, number>();
let jwks: unknown;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'only', alg: 'ES256', use: 'sig' }] };
  sign = (issuer) => new SignJWT({ scope: 'pets:read' }).setProtectedHeader({ alg: 'ES256', kid: 'only', typ: 'at+jwt' })
    .setIssuer(issuer).setAudience(AUDIENCE).setSubject('someone').setIssuedAt().setExpirationTime('10m').sign(privateKey);
  provider = createServer((req, res) => {
    const url = req.url ?? '';
    for (const [path, asked] of failing) {
      if (url.includes(path)) {
        failing.set(path, asked + 1);
        return void res.writeHead(503).end();
      }
    }
    const rfc8414 = url.startsWith('/.well-known/oauth-authorization-server') ? url.slice('/.well-known/oauth-authorization-server'.length) : undefined;
    const document = rfc8414 !== undefined ? metadata.get(rfc8414) : undefined;
    if (document) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
    if (url === '/jwks') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
    // No OpenID discovery here: its well-known path is a 404.
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => provider?.close(resolve));
});

async function serviceFor(issuer: string): Promise<TestServer> {
  return startServer({ env: { JWT_ISSUERS: issuer, JWT_AUDIENCE: AUDIENCE } });
}

const read = (api: TestServer, token: string) => fetch(`${api.url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${token}` } });

describe('an issuer\'s metadata', () => {
  it('is found at RFC 8414\'s place when there is no OpenID discovery (the issuer\'s path after the well-known part)', async () => {
    const issuer = `${base}/tenant-a`;
    metadata.set('/tenant-a', { issuer, jwks_uri: `${base}/jwks` });
    const api = await serviceFor(issuer);
    try {
      expect((await read(api, await sign(issuer))).status).toBe(200);
    } finally {
      await api.close();
    }
  });

  it('naming another issuer is not believed: no keys, 503 with Retry-After', async () => {
    const issuer = `${base}/tenant-b`;
    metadata.set('/tenant-b', { issuer: `${base}/someone-else`, jwks_uri: `${base}/jwks` });
    const api = await serviceFor(issuer);
    try {
      const res = await read(api, await sign(issuer));
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.json()).toEqual({ code: 'UNAVAILABLE', message: expect.any(String), status: 503 });
    } finally {
      await api.close();
    }
  });

  it('failing, costs it no fetch per token: sequential tokens get 503 at once, the provider asked only by the retry', async () => {
    const issuer = `${base}/tenant-down`;
    failing.set('/tenant-down', 0);
    const api = await serviceFor(issuer);
    try {
      const token = await sign(issuer);
      for (let i = 0; i < 30; i += 1) expect((await read(api, token)).status).toBe(503);
      // One attempt at startup: its two well-known places (OpenID discovery, then RFC 8414's).
      expect(failing.get('/tenant-down')).toBeLessThanOrEqual(2);
    } finally {
      await api.close();
    }
  });

  it('sending keys over plain http off loopback is not followed', async () => {
    const issuer = `${base}/tenant-c`;
    metadata.set('/tenant-c', { issuer, jwks_uri: 'http://keys.example.com/jwks' });
    const api = await serviceFor(issuer);
    try {
      expect((await read(api, await sign(issuer))).status).toBe(503);
    } finally {
      await api.close();
    }
  });
});
