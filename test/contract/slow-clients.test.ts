import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseResponses, rawConnection } from '../support/raw-socket.js';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
beforeAll(async () => {
  api = await startServer({ env: { HEADERS_TIMEOUT_SECONDS: '1', REQUEST_TIMEOUT_SECONDS: '2', MAX_HEADER_BYTES: '4096' } });
});
afterAll(async () => { await api?.close(); });

/** The Error body a refused connection ends with, and the headers that go with every response. */
function expectRefusal(text: string, status: number, code: string) {
  const [response, ...more] = parseResponses(text);
  expect(more).toHaveLength(0);
  expect(response).toMatchObject({
    status,
    headers: {
      'content-type': expect.stringMatching(/^application\/json/), connection: 'close',
      'x-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/), 'x-content-type-options': 'nosniff', 'cache-control': 'no-store',
    },
    body: { code, message: expect.any(String), status },
  });
}

describe('slow and abusive clients', () => {
  it('a client that trickles its headers (slowloris) is cut off after HEADERS_TIMEOUT_SECONDS with 408', async () => {
    const connection = await rawConnection(api.url);
    connection.write('GET /v1/pets HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => connection.write('X-Slow: 1\r\n'), 200);
    const { text, afterMs } = await connection.closed;
    clearInterval(trickle);
    expectRefusal(text, 408, 'REQUEST_TIMEOUT');
    expect(afterMs).toBeGreaterThanOrEqual(900);
    expect(afterMs).toBeLessThan(2_500);
  });

  it('a client that trickles its body is cut off after REQUEST_TIMEOUT_SECONDS with 408, and nothing is stored', async () => {
    const before = (await api.get('/v1/pets?limit=100')).body.length;
    const body = '{"name":"Slow","categoryId":1}';
    const connection = await rawConnection(api.url);
    connection.write(`POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: ${api.headers.authorization}\r\n`
      + `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    let sent = 0;
    const trickle = setInterval(() => connection.write(body[sent++] ?? ''), 400);
    const { text, afterMs } = await connection.closed;
    clearInterval(trickle);
    expectRefusal(text, 408, 'REQUEST_TIMEOUT');
    expect(afterMs).toBeGreaterThanOrEqual(1_900);
    expect(afterMs).toBeLessThan(3_500);
    expect((await api.get('/v1/pets?limit=100')).body).toHaveLength(before);
  });

  it('headers over MAX_HEADER_BYTES are refused with 431 HEADERS_TOO_LARGE', async () => {
    const connection = await rawConnection(api.url);
    connection.write(`GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(5_000)}\r\n\r\n`);
    expectRefusal((await connection.closed).text, 431, 'HEADERS_TOO_LARGE');
  });

  it('a request that is not HTTP gets 400 BAD_REQUEST with the Error body', async () => {
    const connection = await rawConnection(api.url);
    connection.write('HELLO THERE\r\n\r\n');
    expectRefusal((await connection.closed).text, 400, 'BAD_REQUEST');
  });

  it('a client that sends nothing at all is closed too', async () => {
    const connection = await rawConnection(api.url);
    const { afterMs } = await connection.closed;
    expect(afterMs).toBeLessThan(2_500);
  });

  it('serves everyone else meanwhile', async () => {
    const slow = await rawConnection(api.url);
    slow.write('GET /v1/pets HTTP/1.1\r\n');
    // Sent after the slow client's first line, so read after it: answered while that request is still open.
    expect((await api.get('/v1/pets')).status).toBe(200);
    expect(slow.socket.destroyed).toBe(false);
    slow.socket.destroy();
  });
});
