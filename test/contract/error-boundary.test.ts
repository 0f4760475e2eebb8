import type { Step } from '../../src/pipeline/pipeline.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rateLimited } from '../support/rate-limited.js';
import { requestLines } from '../support/request-lines.js';
import { startServer, type TestServer } from '../support/server.js';

/** A step that fails on purpose when a request asks it to, in the hook the request names. */
function useFailing(): Step {
  const fail = (request: Request, hook: string) => {
    if (request.headers.get('x-fail') === hook) throw new TypeError(`kaboom in ${hook}: /secret/path/node_modules/x.js`);
  };
  return {
    onRequest: ({ request }) => fail(request, 'request'),
    onResponse: ({ request, response }) => {
      fail(request, 'response');
      // A header node:http refuses to write: the failure comes after the pipeline, as the response goes out.
      if (request.headers.get('x-fail') === 'write') response.headers.set('x-broken', 'a\nb');
    },
  };
}

let api: TestServer;
beforeAll(async () => { api = await startServer({ steps: [useFailing()] }); });
afterAll(async () => { await api?.close(); });

const cases = [
  ['GET /v1/pets', '/v1/pets', {}],
  ['POST /graphql', '/graphql', { method: 'POST', body: '{"query":"{ pets { id } }"}' }],
] as const;

describe('one error boundary around the whole pipeline', () => {
  for (const hook of ['request', 'response']) {
    it.each(cases)(`%s: a step that throws in its ${hook} hook gives 500 INTERNAL with the request id, nothing internal`, async (operation, path, init) => {
      const res = await fetch(`${api.url}${path}`, {
        ...init, headers: { ...api.headers, 'content-type': 'application/json', 'x-fail': hook, 'x-request-id': `boundary-${hook}` },
      });
      expect(res.status).toBe(500);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('x-request-id')).toBe(`boundary-${hook}`);
      rateLimited(res.headers);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const text = await res.text();
      expect(text).not.toMatch(/kaboom|node_modules|secret|TypeError|\n\s+at /);
      const body = JSON.parse(text);
      if (operation.includes('graphql')) expect(body).toEqual({ errors: [{ message: 'Internal error', extensions: { code: 'INTERNAL', status: 500 } }] });
      else expect(body).toEqual({ code: 'INTERNAL', message: 'Internal error', status: 500 });
    });
  }

  it('logs and counts the status the client got when a response hook replaces the response', async () => {
    const counted = async (status: number) => {
      const text = await (await fetch(`${api.url}/metrics`)).text();
      return Number(new RegExp(`animal_store_http_requests_total\\{method="GET",route="/v1/pets",status="${status}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
    };
    const before = { ok: await counted(200), failed: await counted(500) };
    const logged = requestLines();
    try {
      const res = await api.get('/v1/pets?limit=3', { 'x-fail': 'response', 'x-request-id': 'boundary-logged' });
      expect(res.status).toBe(500);
      const line = logged().find((fields) => fields.requestId === 'boundary-logged');
      expect(line).toMatchObject({ requestId: 'boundary-logged', method: 'GET', route: '/v1/pets', status: 500 });
    } finally {
      vi.restoreAllMocks();
    }
    expect({ ok: await counted(200), failed: await counted(500) }).toEqual({ ok: before.ok, failed: before.failed + 1 });
  });

  it('answers 500 INTERNAL with the Error body when the response cannot be written (past the pipeline\'s boundary)', async () => {
    const res = await api.get('/healthz', { 'x-fail': 'write' });
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-broken')).toBeNull();
    expect(res.body).toEqual({ code: 'INTERNAL', message: 'Internal error', status: 500 });
  });

  it('leaves every other request alone', async () => {
    expect((await api.get('/v1/pets')).status).toBe(200);
  });
});
