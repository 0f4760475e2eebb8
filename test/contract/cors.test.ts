import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

const APP = 'https://app.example.com';
const EXPOSED = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'Deprecation', 'Sunset', 'X-Request-Id', 'Location', 'Link', 'RateLimit', 'RateLimit-Policy', 'Idempotent-Replayed', 'ETag', 'Cache-Status'];

let api: TestServer;
beforeAll(async () => { api = await startServer({ env: { CORS_ORIGINS: `${APP}, http://localhost:3000` } }); });
afterAll(async () => { await api?.close(); });

const preflight = (path: string, origin: string, method = 'POST') => fetch(`${api.url}${path}`, {
  method: 'OPTIONS',
  headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' },
});

describe('CORS', () => {
  it.each([
    ['POST', '/v1/pets', 'GET, HEAD, POST'],
    ['PATCH', '/v1/pets/1', 'GET, HEAD, PATCH, DELETE'],
    ['DELETE', '/v1/pets/1', 'GET, HEAD, PATCH, DELETE'],
    ['PATCH', '/v1/store/orders/1', 'GET, HEAD, PATCH'],
    ['POST', '/graphql', 'GET, HEAD, POST'],
  ])('answers a preflight for %s %s with the path\'s methods (%s), without a key, counting nothing', async (method, path, methods) => {
    const remaining = async () => Number((await fetch(`${api.url}/v1/pets`)).headers.get('x-ratelimit-remaining'));
    const before = await remaining();
    for (let i = 0; i < 4; i += 1) {
      const res = await preflight(path, APP, method);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(APP);
      expect(res.headers.get('access-control-allow-methods')).toBe(methods);
      expect(res.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(res.headers.get('vary')).toMatch(/Origin/);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
    // Only the probe requests themselves were counted, not the four preflights between them.
    expect(await remaining()).toBe(before - 1);
  });

  it('allows, for every path of the route table, the methods that path takes', async () => {
    for (const { path, methods } of api.routes) {
      const res = await preflight(path.replace(/:\w+/g, '1'), APP, methods.at(-1));
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-methods'), path).toBe(methods.join(', '));
    }
  });

  it('lists no method for an unknown path: only what a browser sends without asking gets through, to its 404', async () => {
    const res = await preflight('/v1/nope', APP, 'DELETE');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('access-control-allow-methods')).toBeNull();
    const missing = await fetch(`${api.url}/v1/nope`, { headers: { ...api.headers, origin: APP } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('lets the allowed origin read the limit, lifecycle and request-id headers, errors included', async () => {
    const ok = await api.get('/v1/pets/1', { origin: APP });
    const missing = await fetch(`${api.url}/v1/pets`, { headers: { origin: APP } });
    for (const res of [ok, missing]) {
      expect(res.headers.get('access-control-allow-origin')).toBe(APP);
      expect(res.headers.get('access-control-expose-headers')!.split(', ')).toEqual(EXPOSED);
      expect(res.headers.get('vary')).toMatch(/Origin/);
    }
    expect(missing.status).toBe(401);
  });

  it('adds Origin to what a response already varies on, once', async () => {
    const res = await fetch(`${api.url}/v1/openapi.json`, { headers: { origin: APP, 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('vary')).toBe('Accept-Encoding, Origin');
    // A read's answer varies on its key already (its validators: use-response-cache.ts).
    const plain = await api.get('/v1/pets?limit=1', { origin: APP });
    expect(plain.headers.get('vary')).toBe('Authorization, Origin');
  });

  it('gives any other origin nothing to read', async () => {
    const res = await preflight('/v1/pets', 'https://evil.example');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const get = await api.get('/v1/pets', { origin: 'https://evil.example' });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows any origin on the embedded default, and none on MySQL unless CORS_ORIGINS says so', async () => {
    const { loadConfig } = await import('../../src/config.js');
    expect(loadConfig({}).corsOrigins).toEqual(['*']);
    expect(loadConfig({ DATABASE_URL: 'mysql://u@db/x' }).corsOrigins).toEqual([]);
    expect(loadConfig({ DATABASE_URL: 'mysql://u@db/x', CORS_ORIGINS: APP }).corsOrigins).toEqual([APP]);
  });
});
