import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rawRequest } from '../../support/arbitraries/raw-http.js';
import { checkContract } from '../../support/contract-checks.js';
import { fuzzTarget } from '../../support/fuzz-target.js';
import { fuzzParameters } from '../../support/fuzz.js';
import { parseResponses, rawConnection } from '../../support/raw-socket.js';

const target = fuzzTarget();

describe('HTTP/1.1 as raw bytes, any framing (property)', () => {
  it('answers every request, never with 5xx, errors in the Error shape, and writes a pet only with a 201', async () => {
    await fc.assert(fc.asyncProperty(rawRequest(target.key), async (req) => {
      const before = await target.pets.count();
      const connection = await rawConnection(target.api.url);
      connection.socket.write(Buffer.from(req.text, 'latin1'));
      const { text } = await connection.closed;
      expect(text, req.text.slice(0, 300)).toMatch(/^HTTP\/1\.1 \d{3} /);
      const [first] = parseResponses(text);
      const answer = { status: first!.status, headers: { get: (name: string) => first!.headers[name] ?? null }, text: first!.text };
      const head = req.method === 'HEAD' || req.method === 'get';
      if (!head) checkContract(req.target.startsWith('/graphql') ? 'graphql' : 'rest', answer, req.text.slice(0, 300));
      else expect(answer.status, req.text.slice(0, 300)).toBeLessThan(500);
      expect(await target.pets.count(), req.text.slice(0, 300)).toBe(before + (answer.status === 201 ? 1 : answer.status === 204 ? -1 : 0));
    }), { ...fuzzParameters, numRuns: Math.ceil(fuzzParameters.numRuns! / 2) });
  }, 600_000);

  it('then answers a valid request normally', async () => {
    expect((await target.api.post('/v1/pets', { name: 'After raw bytes', categoryId: 3 })).status).toBe(201);
    expect((await target.api.get('/v1/pets?limit=1')).status).toBe(200);
  });
});
