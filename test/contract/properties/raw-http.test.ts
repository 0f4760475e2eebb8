import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../support/arbitraries/raw-http.js';
import { checkContract } from '../../support/contract-checks.js';
import { fuzzParameters } from '../../support/fuzz.js';
import { petCounter } from '../../support/pet-count.js';
import { rawConnection } from '../../support/raw-socket.js';
import { startServer, type TestServer } from '../../support/server.js';

let api: TestServer;
let pets: Awaited<ReturnType<typeof petCounter>>;
let key: string;
beforeAll(async () => {
  api = await startServer({ limits: { anonymousPerMinute: 1_000_000 } });
  pets = await petCounter(api.store);
  key = api.headers.authorization!.slice('Bearer '.length);
});
afterAll(async () => {
  await pets?.close();
  await api?.close();
});

/** The first response in what the server sent before closing: status, headers and body text. */
function firstResponse(text: string) {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  let body = text.slice(end + 4);
  if (headers.get('transfer-encoding') === 'chunked') {
    let decoded = '';
    for (let size = parseInt(body, 16); size > 0; size = parseInt(body, 16)) {
      const start = body.indexOf('\r\n') + 2;
      decoded += body.slice(start, start + size);
      body = body.slice(start + size + 2);
    }
    body = decoded;
  } else if (headers.has('content-length')) {
    body = body.slice(0, Number(headers.get('content-length')));
  }
  return { status: Number(statusLine.split(' ')[1]), headers: { get: (name: string) => headers.get(name) ?? null }, text: body };
}

describe('HTTP/1.1 as raw bytes, any framing (property)', () => {
  it('answers every request, never with 5xx, errors in the Error shape, and writes a pet only with a 201', async () => {
    await fc.assert(fc.asyncProperty(rawRequest(key), async (req) => {
      const before = await pets.count();
      const connection = await rawConnection(api.url);
      connection.socket.write(Buffer.from(req.text, 'latin1'));
      const { text } = await connection.closed;
      expect(text, req.text.slice(0, 300)).toMatch(/^HTTP\/1\.1 \d{3} /);
      const answer = firstResponse(text);
      const head = req.method === 'HEAD' || req.method === 'get';
      if (!head) checkContract(req.target.startsWith('/graphql') ? 'graphql' : 'rest', answer, req.text.slice(0, 300));
      else expect(answer.status, req.text.slice(0, 300)).toBeLessThan(500);
      expect(await pets.count(), req.text.slice(0, 300)).toBe(before + (answer.status === 201 ? 1 : 0));
    }), { ...fuzzParameters, numRuns: Math.ceil(fuzzParameters.numRuns! / 2) });
  }, 600_000);

  it('then answers a valid request normally', async () => {
    expect((await api.post('/v1/pets', { name: 'After raw bytes', categoryId: 3 })).status).toBe(201);
    expect((await api.get('/v1/pets?limit=1')).status).toBe(200);
  });
});
