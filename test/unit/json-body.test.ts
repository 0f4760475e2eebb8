import { describe, expect, it } from 'vitest';
import { readJsonBody } from '../../src/pipeline/body.js';

/** A request through the Fetch API only (app.handle.fetch): no node:http request under it. */
const request = (body: BodyInit, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  new Request('http://localhost/v1/pets', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

const chunked = (chunks: number, size: number) => new ReadableStream<Uint8Array>({
  start(controller) {
    for (let i = 0; i < chunks; i++) controller.enqueue(new Uint8Array(size).fill(0x20));
    controller.close();
  },
});

// The contract tests read bodies through node:http; these hold the Fetch API's path to the same answers.
describe('a JSON body read through the Fetch API', () => {
  it('is parsed', async () => {
    await expect(readJsonBody(request('{"name":"Rex","categoryId":1}'))).resolves.toEqual({ name: 'Rex', categoryId: 1 });
  });

  it('is refused once a body without a length passes the limit, and at the limit is read', async () => {
    await expect(readJsonBody(request(chunked(5, 1_000)), undefined, undefined, 4_000)).rejects.toMatchObject({ extensions: { code: 'PAYLOAD_TOO_LARGE' } });
    await expect(readJsonBody(request(chunked(4, 1_000)), undefined, undefined, 4_000)).rejects.toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
  });

  it('is refused when empty, not UTF-8, or not JSON', async () => {
    await expect(readJsonBody(request(''))).rejects.toMatchObject({ message: 'The request body is empty; send a JSON document' });
    await expect(readJsonBody(request(new Uint8Array([0x7b, 0xff, 0x7d])))).rejects.toMatchObject({ message: 'The request body is not valid UTF-8' });
    await expect(readJsonBody(request('{"name":'))).rejects.toMatchObject({ message: expect.stringContaining('not valid JSON') });
  });
});
