import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
beforeAll(async () => { api = await startServer({ env: { ANONYMOUS_PER_MINUTE: '1000' } }); });
afterAll(async () => { await api?.close(); });

const responses: [string, () => Promise<Response>][] = [
  ['a REST list', () => fetch(`${api.url}/v1/pets`, { headers: api.headers })],
  ['a REST 201', () => fetch(`${api.url}/v1/pets`, { method: 'POST', headers: { ...api.headers, 'content-type': 'application/json' }, body: '{"name":"H","categoryId":1}' })],
  ['a REST 400', () => fetch(`${api.url}/v1/pets?limit=0`, { headers: api.headers })],
  ['a REST 401', () => fetch(`${api.url}/v1/pets`)],
  ['a REST 404', () => fetch(`${api.url}/v1/nope`, { headers: api.headers })],
  ['a REST 405', () => fetch(`${api.url}/v1/pets`, { method: 'PUT', headers: api.headers })],
  ['a GraphQL result', () => fetch(`${api.url}/graphql`, { method: 'POST', headers: { ...api.headers, 'content-type': 'application/json' }, body: '{"query":"{ pets { id } }"}' })],
  ['a GraphQL 401', () => fetch(`${api.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ pets { id } }"}' })],
  ['/healthz', () => fetch(`${api.url}/healthz`)],
  ['/readyz', () => fetch(`${api.url}/readyz`)],
  ['/metrics', () => fetch(`${api.url}/metrics`)],
  ['the OpenAPI document', () => fetch(`${api.url}/v1/openapi.json`)],
  ['the REST docs page', () => fetch(`${api.url}/v1/docs`)],
  ['a REST docs asset', () => fetch(`${api.url}/v1/docs/swagger-ui.css`)],
  ['the GraphiQL page', () => fetch(`${api.url}/graphql`, { headers: { accept: 'text/html' } })],
  ['a CORS preflight', () => fetch(`${api.url}/v1/pets`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' } })],
];

describe('security headers', () => {
  it.each(responses)('%s carries nosniff and no-referrer', async (_case, send) => {
    const res = await send();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it.each(responses.slice(1, 8))('%s, which carries per-key data, may not be stored by any cache', async (_case, send) => {
    expect((await send()).headers.get('cache-control')).toBe('no-store');
  });

  it.each([
    responses[0]!,
    ['a GraphQL GET result', () => fetch(`${api.url}/graphql?query=${encodeURIComponent('{ pets { id } }')}`, { headers: api.headers })] as const,
  ])('%s, a read with a validator, may be kept by the browser only, and asked again each time', async (_case, send) => {
    const res = await send();
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    expect(res.headers.get('etag')).toMatch(/^"[\w-]+"$/);
  });

  it('static assets keep their own caching', async () => {
    expect((await fetch(`${api.url}/v1/docs/swagger-ui.css`)).headers.get('cache-control')).toBe('public, max-age=86400');
    expect((await fetch(`${api.url}/v1/openapi.json`)).headers.get('cache-control')).toBe('no-cache');
  });
});
