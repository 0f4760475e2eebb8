import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawConnection } from '../support/raw-socket.js';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
/** A value for each `:name` of the route table: a route with a parameter not here fails the test, so a new one is not skipped. */
let params: Record<string, string>;
beforeAll(async () => {
  api = await startServer();
  const pet = await api.post('/v1/pets', { name: 'Head Rex', categoryId: 1 });
  const order = await api.post('/v1/store/orders', { petId: (await api.post('/v1/pets', { name: 'Head Tom', categoryId: 2 })).body.id });
  const hook = await api.post('/v1/webhooks', { url: 'https://hooks.example.com/in' });
  params = { petId: String(pet.body.id), orderId: String(order.body.id), endpointId: String(hook.body.id), deliveryId: '1' };
});
afterAll(async () => { await api?.close(); });

/** What a GET of each path needs besides its parameters: /graphql reads its operation from the query string. */
const QUERIES: Record<string, string> = { '/graphql': `?query=${encodeURIComponent('{ pets(limit: 2) { id name } }')}` };

const filled = (path: string) => path.replace(/:(\w+)/g, (_, name: string) => {
  if (!(name in params)) throw new Error(`no value for :${name} of ${path}: add one to the test's params`);
  return params[name]!;
}) + (QUERIES[path] ?? '');

/**
 * One request as bytes (fetch hides whether a HEAD answer carried a body), followed on the same
 * connection by a GET /healthz that closes it: whatever the server sent between the first answer's
 * header block and the second answer is the first one's body (`after`), for a HEAD nothing at all. An
 * answer that keeps its connection open (a stream's does) is thus read without waiting for it to close.
 */
async function rawCall(method: string, target: string, headers: Record<string, string> = {}) {
  const connection = await rawConnection(api.url);
  const host = new URL(api.url).host;
  const lines = Object.entries({ host, ...headers }).map(([name, value]) => `${name}: ${value}\r\n`);
  connection.write(`${method} ${target} HTTP/1.1\r\n${lines.join('')}\r\nGET /healthz HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`);
  const { text } = await connection.closed;
  const end = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...headerLines] = text.slice(0, end).split('\r\n');
  const received: Record<string, string> = {};
  for (const line of headerLines) received[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
  const probe = text.lastIndexOf('HTTP/1.1 200 OK\r\n');
  expect(probe, 'the /healthz answer after it').toBeGreaterThan(end);
  return { status: Number(statusLine.split(' ')[1]), headers: received, after: text.slice(end + 4, probe) };
}

/**
 * Headers that differ between any two requests (the request id, the date, the points left, whether the
 * response cache held the answer yet), or that frame the body's bytes.
 */
const PER_REQUEST = new Set(['date', 'x-request-id', 'x-ratelimit-remaining', 'ratelimit', 'cache-status', 'transfer-encoding', 'keep-alive']);
const lasting = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).filter(([name]) => !PER_REQUEST.has(name)));

describe('HEAD', () => {
  it('answers every GET route of the route table with the GET\'s status and headers, and no body', async () => {
    const readable = api.routes.filter(({ methods }) => methods.includes('GET'));
    // The table has the API's reads, the probes, the documents and the docs pages.
    expect(readable.map(({ path }) => path)).toEqual(expect.arrayContaining(['/v1/pets', '/v1/pets/:petId', '/graphql', '/healthz', '/readyz', '/metrics', '/v1/openapi.json', '/v1/docs']));
    for (const { path, methods } of readable) {
      expect(methods, path).toContain('HEAD');
      const target = filled(path);
      const get = await rawCall('GET', target, api.headers);
      const head = await rawCall('HEAD', target, api.headers);
      expect(head.status, target).toBe(get.status);
      expect(lasting(head.headers), target).toEqual(
        // /metrics counts the GET itself: its length moves on between the two.
        path === '/metrics' ? { ...lasting(get.headers), 'content-length': head.headers['content-length'] } : lasting(get.headers),
      );
      expect(head.after, target).toBe('');
      expect(get.after.length, target).toBeGreaterThan(0);
    }
  });

  it('carries the GET\'s Content-Length, and sends no body bytes', async () => {
    const document = await fetch(`${api.url}/v1/openapi.json`);
    const length = (await document.arrayBuffer()).byteLength;
    const head = await rawCall('HEAD', '/v1/openapi.json');
    expect(head).toMatchObject({ status: 200, after: '' });
    expect(Number(head.headers['content-length'])).toBe(length);
  });

  it('costs a point, as its GET does, and answers with the limits', async () => {
    const { auth } = await api.newKey('free');
    const get = await rawCall('GET', '/v1/pets?limit=1', auth);
    const head = await rawCall('HEAD', '/v1/pets?limit=1', auth);
    expect(get.headers['x-ratelimit-limit']).toBe('60');
    expect(Number(head.headers['x-ratelimit-remaining'])).toBe(Number(get.headers['x-ratelimit-remaining']) - 1);
    expect(head.headers['x-ratelimit-reset']).toBe(get.headers['x-ratelimit-reset']);
  });

  it('carries a deprecated route\'s Deprecation, Sunset and the request\'s Link', async () => {
    const one = await rawCall('HEAD', `/v1/pets/${params.petId}`, api.headers);
    expect(one).toMatchObject({ status: 200, after: '' });
    expect(one.headers.sunset).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    expect(one.headers.deprecation).toMatch(/^@\d+$/);
    const page = await rawCall('HEAD', '/v1/pets?limit=1', api.headers);
    expect(page.headers.link).toMatch(/^<\/v1\/pets\?limit=1&cursor=[^>]+>; rel="next"$/);
  });

  it('is held to the key\'s scopes as its GET is: 403 for a key without them', async () => {
    const { auth } = await api.newKey('free', {}, 'orders:read');
    const head = await rawCall('HEAD', '/v1/webhooks', auth);
    const get = await rawCall('GET', '/v1/webhooks', auth);
    expect(head).toMatchObject({ status: 403, after: '' });
    expect(get.status).toBe(403);
    // The refusal's message names the method sent ("may not call HEAD /v1/webhooks"): a byte longer.
    expect(lasting(head.headers)).toEqual({ ...lasting(get.headers), 'content-length': String(Number(get.headers['content-length']) + 1) });
    expect((await rawCall('HEAD', '/v1/store/orders', auth)).status).toBe(200);
  });

  it('without a key answers 401 with WWW-Authenticate and the limits, and no body', async () => {
    const head = await rawCall('HEAD', '/v1/pets');
    const get = await rawCall('GET', '/v1/pets');
    expect(head).toMatchObject({ status: 401, after: '' });
    expect(lasting(head.headers)).toEqual(lasting(get.headers));
    expect(head.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(head.headers['x-ratelimit-limit']).toBe('60');
  });

  it('refuses an error as its GET does: a bad parameter is 400 with the same headers, no body', async () => {
    const head = await rawCall('HEAD', '/v1/pets?limit=0', api.headers);
    const get = await rawCall('GET', '/v1/pets?limit=0', api.headers);
    expect(head).toMatchObject({ status: 400, after: '' });
    expect(lasting(head.headers)).toEqual(lasting(get.headers));
    expect(JSON.parse(get.after.replace(/^[0-9a-f]+\r\n|\r\n0\r\n\r\n$/g, ''))).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('HEAD /graphql?query= runs as GET /graphql does, a mutation refused 405 with Allow: POST', async () => {
    const query = await rawCall('HEAD', filled('/graphql'), { ...api.headers, accept: 'application/graphql-response+json' });
    expect(query).toMatchObject({ status: 200, after: '' });
    expect(query.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
    const mutation = `/graphql?query=${encodeURIComponent('mutation { deletePet(petId: 1) }')}`;
    const refused = await rawCall('HEAD', mutation, { ...api.headers, accept: 'application/json' });
    expect(refused).toMatchObject({ status: 405, after: '' });
    expect(refused.headers.allow).toBe('POST');
  });

  it('HEAD /graphql for a page answers as the GraphiQL page does', async () => {
    const page = await rawCall('HEAD', '/graphql', { accept: 'text/html' });
    const get = await rawCall('GET', '/graphql', { accept: 'text/html' });
    expect(page).toMatchObject({ status: 200, after: '' });
    expect(lasting(page.headers)).toEqual(lasting(get.headers));
    expect(page.headers['content-type']).toMatch(/^text\/html/);
  });

  it('HEAD of a subscription answers the stream\'s headers and ends, opening no stream', async () => {
    const subscription = `/graphql?query=${encodeURIComponent('subscription { petChanged { kind } }')}`;
    const headers = { ...api.headers, accept: 'text/event-stream' };
    const controller = new AbortController();
    const get = await fetch(`${api.url}${subscription}`, { headers, signal: controller.signal });
    expect(get.status).toBe(200);
    controller.abort();
    // The next request on the connection is answered at once: a stream would hold it until the test times out.
    const head = await rawCall('HEAD', subscription, headers);
    expect(head).toMatchObject({ status: 200, after: '' });
    expect(head.headers['content-type']).toBe(get.headers.get('content-type'));
    expect(head.headers['cache-control']).toBe(get.headers.get('cache-control') ?? undefined);
  });
});

describe('405 on a known path', () => {
  it('lists HEAD in Allow wherever GET is, for every path of the route table', async () => {
    for (const { path, methods } of api.routes) {
      const res = await fetch(`${api.url}${filled(path)}`, { method: 'PUT', headers: api.headers });
      expect(res.status, path).toBe(405);
      expect(res.headers.get('allow'), path).toBe(methods.join(', '));
      expect(methods.includes('HEAD'), path).toBe(methods.includes('GET'));
    }
  });

  it('refuses HEAD where there is no GET, with Allow', async () => {
    const res = await rawCall('HEAD', `/v1/webhooks/${params.endpointId}/test`, api.headers);
    expect(res).toMatchObject({ status: 405, after: '' });
    expect(res.headers.allow).toBe('POST');
  });
});
