import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseResponses, rawConnection } from '../support/raw-socket.js';
import { startServer, type TestServer } from '../support/server.js';
import { sleep } from '../support/time.js';

let api: TestServer;
beforeAll(async () => { api = await startServer(); });
afterAll(async () => { await api?.close(); });

async function raw(path: string, init: RequestInit = {}) {
  const res = await fetch(`${api.url}${path}`, { ...init, headers: { ...api.headers, ...(init.headers as object) } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

describe('unknown routes', () => {
  it.each(['/v1/nope', '/v1/pets/1/toys', '/v1/pets/', '/v1/webhook', '/v2/pets', '/', '/graphql/x'])(
    'GET %s answers 404 NOT_FOUND with the Error body',
    async (path) => {
      const res = await raw(path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      if (path.startsWith('/graphql')) {
        expect(res.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'NOT_FOUND', status: 404 } }] });
      } else {
        expect(res.body).toEqual({ code: 'NOT_FOUND', message: expect.stringContaining(path), status: 404 });
      }
    },
  );
});

describe('known paths, other methods', () => {
  it.each([
    ['DELETE', '/v1/pets', 'GET, HEAD, POST'],
    ['PUT', '/v1/pets', 'GET, HEAD, POST'],
    ['PUT', '/v1/pets/1', 'GET, HEAD, PATCH, DELETE'],
    ['POST', '/v1/pets/1', 'GET, HEAD, PATCH, DELETE'],
    ['DELETE', '/v1/store/orders', 'GET, HEAD, POST'],
    ['DELETE', '/v1/store/orders/1', 'GET, HEAD, PATCH'],
    ['POST', '/v1/openapi.json', 'GET, HEAD'],
    ['POST', '/healthz', 'GET, HEAD'],
  ])('%s %s answers 405 METHOD_NOT_ALLOWED with Allow: %s', async (method, path, allow) => {
    const res = await raw(path, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ code: 'METHOD_NOT_ALLOWED', message: expect.stringContaining(method), status: 405 });
  });

  it('CONNECT answers 405 in the Error shape instead of dropping the connection (found by the property tests)', async () => {
    const connection = await rawConnection(api.url);
    connection.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    const [response] = parseResponses((await connection.closed).text);
    expect(response!.status).toBe(405);
    expect(response!.headers['x-request-id']).toBeTruthy();
    expect(response!.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
    expect(response!.body).toEqual({ code: 'METHOD_NOT_ALLOWED', message: 'CONNECT is not supported: this server is not a proxy', status: 405 });
  });

  it('PUT /graphql answers 405 in the GraphQL shape with Allow: GET, HEAD, POST', async () => {
    const res = await raw('/graphql', { method: 'PUT' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(res.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'METHOD_NOT_ALLOWED', status: 405 } }] });
  });
});

describe('request bodies', () => {
  const post = (path: string, body: BodyInit, contentType?: string) =>
    raw(path, { method: 'POST', body, headers: contentType ? { 'content-type': contentType } : {} });

  it.each([['text/plain', '{"name":"Rex","categoryId":1}'], ['application/x-www-form-urlencoded', 'name=Rex&categoryId=1'],
    ['multipart/form-data; boundary=x', '--x--'], [undefined, '{"name":"Rex","categoryId":1}']])(
    'POST /v1/pets with Content-Type %s answers 415 UNSUPPORTED_MEDIA_TYPE',
    async (type, body) => {
      const res = await post('/v1/pets', body, type);
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('application/json'), status: 415 });
    },
  );

  it('accepts application/json with a charset', async () => {
    const res = await post('/v1/pets', '{"name":"Rex","categoryId":1}', 'application/json; charset=utf-8');
    expect(res.status).toBe(201);
  });

  it('POST /v1/pets with malformed JSON answers 400 BAD_REQUEST', async () => {
    const res = await post('/v1/pets', '{"name": "Rex", categoryId: 1', 'application/json');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('not valid JSON'), status: 400 });
  });

  it('POST /v1/pets with a body that is not UTF-8 answers 400 BAD_REQUEST, and stores nothing', async () => {
    const body = Buffer.concat([Buffer.from('{"name":"R'), Buffer.from([0xff, 0xfe]), Buffer.from('x","categoryId":1}')]);
    const res = await post('/v1/pets', body, 'application/json');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'BAD_REQUEST', message: 'The request body is not valid UTF-8', status: 400 });
  });

  it('POST /v1/pets with an empty body answers 400 BAD_REQUEST', async () => {
    const res = await post('/v1/pets', '', 'application/json');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('empty'), status: 400 });
  });

  it('POST /v1/pets with a 65 KiB body answers 413 PAYLOAD_TOO_LARGE', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(65 * 1024), categoryId: 1 });
    const res = await post('/v1/pets', body, 'application/json');
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('65536 bytes'), status: 413 });
  });

  it('refuses a chunked body (no Content-Length) once it passes 64 KiB', async () => {
    const chunk = new TextEncoder().encode(`"${'x'.repeat(16 * 1024)}",`);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 8) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await fetch(`${api.url}/v1/pets`, {
      method: 'POST', body: stream, duplex: 'half', headers: { ...api.headers, 'content-type': 'application/json' },
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
    expect(await res.json()).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: expect.any(String), status: 413 });
  });

  it('accepts a body of just under 64 KiB', async () => {
    const name = 'x'.repeat(200);
    const padding = 65_536 - JSON.stringify({ name, categoryId: 1 }).length;
    const body = `${JSON.stringify({ name, categoryId: 1 })}${' '.repeat(padding)}`;
    expect(Buffer.byteLength(body)).toBe(65_536);
    const res = await post('/v1/pets', body, 'application/json');
    expect(res.status).toBe(201);
  });

  it('POST /graphql with malformed JSON answers 400 in the GraphQL shape', async () => {
    const res = await post('/graphql', '{"query": ', 'application/json');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{ message: expect.stringContaining('not valid JSON'), extensions: { code: 'BAD_REQUEST', status: 400 } }] });
  });

  it.each([
    ['an empty batch', '[]', 'The batch is empty: send at least one operation in the array'],
    ['a string', '"{ pets { id } }"'],
    ['a numeric query', '{"query": 5}'],
    ['variables that are not an object', '{"query":"{ pets { id } }","variables":"x"}'],
    ['no query, but variables', '{"variables":{}}', 'Send the operation as a non-empty string in "query", or a registered document by "documentId"'],
    ['an empty object', '{}', 'Send the operation as a non-empty string in "query", or a registered document by "documentId"'],
    ['an unknown field', '{"query":"{ pets { id color } }"}'],
    ['a syntax error', '{"query":"{ pets { id "}'],
    ['a variable of the wrong type', '{"query":"query($l: Int) { pets(limit: $l) { id } }","variables":{"l":"ten"}}'],
  ])('POST /graphql with %s answers HTTP 400, the status its body gives', async (_case, body, message?: string) => {
    const res = await post('/graphql', body, 'application/json');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/(graphql-response\+)?json/);
    expect(res.body).toEqual({ errors: [expect.objectContaining({ message: message ?? expect.any(String), extensions: { code: 'BAD_REQUEST', status: 400 } })] });
    expect(res.body).not.toHaveProperty('data');
  });

  it('POST /graphql with a 65 KiB body answers 413 PAYLOAD_TOO_LARGE in the GraphQL shape', async () => {
    const body = JSON.stringify({ query: `{ pets { id } }${' '.repeat(65 * 1024)}` });
    const res = await post('/graphql', body, 'application/json');
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
    expect(res.body).toEqual({ errors: [{ message: expect.stringContaining('65536 bytes'), extensions: { code: 'PAYLOAD_TOO_LARGE', status: 413 } }] });
  });

  it.each(['/v1/pets', '/graphql'])('POST %s with a body that never ends is refused once past 64 KiB, without waiting for the end', async (path) => {
    // A raw connection: the server answers and closes while the client is still sending, and fetch may
    // report that as a failed write (EPIPE) instead of the response it was sent.
    const connection = await rawConnection(api.url);
    connection.write(`POST ${path} HTTP/1.1\r\nHost: test\r\nAuthorization: ${api.headers.authorization}\r\n`
      + 'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
    const chunk = `${(16 * 1024).toString(16)}\r\n${' '.repeat(16 * 1024)}\r\n`;
    let sent = 0;
    let open = true;
    void connection.closed.then(() => { open = false; });
    // Never ends: a server that waits for the end never answers.
    while (open && sent < 1024 * 1024) {
      connection.write(chunk);
      sent += 16 * 1024;
      // Paced past 128 KiB (the pace is the point): a server that answers once past 64 KiB has answered
      // long before this client could have sent 256 KiB.
      await sleep(sent > 128 * 1024 ? 200 : 0);
    }
    const { text } = await connection.closed;
    expect(sent).toBeLessThanOrEqual(256 * 1024);
    const [res] = parseResponses(text);
    expect(res?.status).toBe(413);
    expect(res!.headers.connection).toBe('close');
    expect(path === '/graphql' ? res!.body.errors[0].extensions : res!.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
  });

  it('POST /graphql asking for a media type it cannot produce still gets JSON, not an empty 406', async () => {
    const res = await raw('/graphql', { method: 'POST', body: '{"query":"{ pets(limit: 1) { id } }"}', headers: { 'content-type': 'application/json', accept: 'text/plain' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ data: { pets: expect.any(Array) } });
  });

  it('POST /graphql with text/plain answers 415 in the GraphQL shape', async () => {
    const res = await post('/graphql', '{ pets { id } }', 'text/plain');
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 } }] });
  });
});

describe('HEAD', () => {
  it.each(['/healthz', '/readyz', '/v1/openapi.json'])('HEAD %s answers 200 with the headers of a GET and no body', async (path) => {
    const res = await fetch(`${api.url}${path}`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.text()).toBe('');
  });
});

describe('request ids', () => {
  it('returns a fresh X-Request-Id on every response, errors included', async () => {
    const a = await raw('/v1/pets');
    const b = await raw('/v1/nope');
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('keeps a sane incoming X-Request-Id and replaces an unsafe one', async () => {
    expect((await raw('/v1/pets', { headers: { 'x-request-id': 'trace-123.abc' } })).headers.get('x-request-id')).toBe('trace-123.abc');
    const unsafe = await raw('/v1/pets', { headers: { 'x-request-id': 'a b <script>' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
