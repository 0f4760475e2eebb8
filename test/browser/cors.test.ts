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
/** Records each frontend changes: a pet to rename and one to delete, and an order to approve. */
let ids: { renamed: number; deleted: number; order: number };
beforeAll(async () => {
  [allowed, other, browser] = await Promise.all([frontend(), frontend(), openBrowser()]);
  api = await startServer({ env: { CORS_ORIGINS: allowed.origin } });
  const renamed = (await api.post('/v1/pets', { name: 'Cors Rex', categoryId: 1 })).body.id;
  const deleted = (await api.post('/v1/pets', { name: 'Cors Gone', categoryId: 1 })).body.id;
  const ordered = (await api.post('/v1/pets', { name: 'Cors Sold', categoryId: 1 })).body.id;
  ids = { renamed, deleted, order: (await api.post('/v1/store/orders', { petId: ordered })).body.id };
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
  allowed?.server.close();
  other?.server.close();
});

/** What browser code on `origin` gets from both surfaces, preflights and all. */
async function callFrom(origin: string) {
  // Not intercepted: the browser's preflights must reach the API, and be answered by it.
  const page = await browser.page({ intercept: false });
  await page.goto(origin);
  return page.evaluate(async ({ url, authorization, ids }) => {
    const read = async (request: Promise<Response>) => {
      try {
        const res = await request;
        const text = await res.text();
        return {
          status: res.status, body: text ? JSON.parse(text) : null,
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
      // PATCH and DELETE are not among the methods a browser sends without asking: their preflight must list them.
      renamed: await read(fetch(`${url}/v1/pets/${ids.renamed}`, { method: 'PATCH', headers, body: JSON.stringify({ name: 'Renamed in the browser' }) })),
      deleted: await read(fetch(`${url}/v1/pets/${ids.deleted}`, { method: 'DELETE', headers })),
      approved: await read(fetch(`${url}/v1/store/orders/${ids.order}`, { method: 'PATCH', headers, body: JSON.stringify({ status: 'approved' }) })),
    };
  }, { url: api.url, authorization: api.headers.authorization!, ids });
}

describe('CORS from a browser', () => {
  it('lets a frontend on an allowed origin call both surfaces, change and delete records, and read the headers', async () => {
    const result = await callFrom(allowed.origin);
    expect(result.rest).toMatchObject({ status: 200, remaining: expect.stringMatching(/^\d+$/), requestId: expect.any(String) });
    expect(result.rest.body).toContainEqual(expect.objectContaining({ name: 'Cors Rex' }));
    expect(result.created).toMatchObject({ status: 201, body: { name: 'From the browser' } });
    expect(result.deprecated).toMatchObject({ status: 200, sunset: 'Thu, 05 Dec 2030 00:00:00 GMT' });
    expect(result.graphql).toMatchObject({ status: 200, body: { data: { pets: expect.any(Array) } } });
    expect(result.unauthenticated).toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED' }, remaining: expect.stringMatching(/^\d+$/) });
    expect(result.renamed).toMatchObject({ status: 200, body: { id: ids.renamed, name: 'Renamed in the browser' }, remaining: expect.stringMatching(/^\d+$/) });
    expect(result.deleted).toMatchObject({ status: 204, body: null, requestId: expect.any(String) });
    expect(result.approved).toMatchObject({ status: 200, body: { id: ids.order, status: 'approved' } });
    expect((await api.get(`/v1/pets/${ids.deleted}`)).status).toBe(404);
  });

  it('blocks a frontend on any other origin', async () => {
    const before = (await api.get(`/v1/pets/${ids.renamed}`)).body;
    const result = await callFrom(other.origin);
    for (const call of Object.values(result)) expect(call).toEqual({ blocked: expect.stringContaining('Failed to fetch') });
    // Its PATCH never left the browser: the preflight refused it.
    expect((await api.get(`/v1/pets/${ids.renamed}`)).body).toEqual(before);
  });
});
