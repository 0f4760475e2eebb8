import { describe, expect, it } from 'vitest';
import { parseResponses, rawConnection } from '../support/raw-socket.js';
import { startServer } from '../support/server.js';

describe('shutting down', () => {
  it('finishes the request in flight, and refuses one that arrives meanwhile with 503 and Retry-After', async () => {
    const api = await startServer();
    const auth = `Authorization: ${api.headers.authorization}\r\n`;
    const body = '{"name":"In flight","categoryId":1}';
    const inFlight = await rawConnection(api.url);
    inFlight.write(`POST /v1/pets HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
    // A client halfway through sending a request on another connection: not idle, so not closed at once.
    const late = await rawConnection(api.url);
    late.write('GET /v1/pets HTTP/1.1\r\nHost: x\r\n');
    // The server has read both beginnings once it has answered a request sent after them (on a third connection).
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);

    // stop() drains before it returns its promise: from here on, a request is refused.
    const stopped = api.stop();
    late.write(`${auth}\r\n`);
    inFlight.write(body.slice(5));

    const [refused] = parseResponses((await late.closed).text);
    expect(refused).toMatchObject({
      status: 503,
      headers: { 'retry-after': '1', connection: 'close', 'content-type': expect.stringMatching(/^application\/json/), 'x-request-id': expect.any(String) },
      body: { code: 'UNAVAILABLE', message: expect.stringContaining('shutting down'), status: 503 },
    });
    const [created] = parseResponses((await inFlight.closed).text);
    expect(created).toMatchObject({ status: 201, body: { name: 'In flight' } });
    await stopped;
    await api.store.drop();
  });
});
