import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser, type TestBrowser } from '../support/browser.js';
import { startServer, type TestServer } from '../support/server.js';

/** A frontend on an origin of its own: an empty page whose scripts call the API. */
async function frontend(): Promise<{ origin: string; server: Server }> {
  const server = createServer((_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<!doctype html><title>app</title>'); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

let api: TestServer;
let browser: TestBrowser;
let allowed: Awaited<ReturnType<typeof frontend>>;
let other: Awaited<ReturnType<typeof frontend>>;
beforeAll(async () => {
  [allowed, other, browser] = await Promise.all([frontend(), frontend(), openBrowser()]);
  api = await startServer({ env: { CORS_ORIGINS: allowed.origin } });
  await api.post('/v1/pets', { name: 'Cors Rex', categoryId: 1 });
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
  allowed?.server.close();
  other?.server.close();
});

/** What browser code on `origin` gets from both surfaces, preflights and all. */
async function callFrom(origin: string) {
  const page = await browser.page();
  await page.goto(origin);
  return page.evaluate(async ({ url, authorization }) => {
    const read = async (request: Promise<Response>) => {
      try {
        const res = await request;
        return {
          status: res.status, body: await res.json(),
          remaining: res.headers.get('x-ratelimit-remaining'), requestId: res.headers.get('x-request-id'),
          sunset: res.headers.get('sunset'),
        };
      } catch (error) {
        return { blocked: String(error) };
      }
    };
    const headers = { authorization, 'content-type': 'application/json' };
    return {
      rest: await read(fetch(`${url}/v1/pets?limit=5`, { headers })),
      created: await read(fetch(`${url}/v1/pets`, { method: 'POST', headers, body: JSON.stringify({ name: 'From the browser', categoryId: 2 }) })),
      deprecated: await read(fetch(`${url}/v1/pets/1`, { headers })),
      graphql: await read(fetch(`${url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: '{ pets(limit: 5) { id name } }' }) })),
      unauthenticated: await read(fetch(`${url}/v1/pets`)),
    };
  }, { url: api.url, authorization: api.headers.authorization! });
}

describe('CORS from a browser', () => {
  it('lets a frontend on an allowed origin call both surfaces and read the headers', async () => {
    const result = await callFrom(allowed.origin);
    expect(result.rest).toMatchObject({ status: 200, remaining: expect.stringMatching(/^\d+$/), requestId: expect.any(String) });
    expect(result.rest.body).toContainEqual(expect.objectContaining({ name: 'Cors Rex' }));
    expect(result.created).toMatchObject({ status: 201, body: { name: 'From the browser' } });
    expect(result.deprecated).toMatchObject({ status: 200, sunset: 'Thu, 05 Dec 2030 00:00:00 GMT' });
    expect(result.graphql).toMatchObject({ status: 200, body: { data: { pets: expect.any(Array) } } });
    expect(result.unauthenticated).toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED' }, remaining: expect.stringMatching(/^\d+$/) });
  });

  it('blocks a frontend on any other origin', async () => {
    const result = await callFrom(other.origin);
    for (const call of Object.values(result)) expect(call).toEqual({ blocked: expect.stringContaining('Failed to fetch') });
  });
});
