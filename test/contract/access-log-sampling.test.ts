import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Step } from '../../src/pipeline/pipeline.js';
import { requestLines } from '../support/request-lines.js';
import { startServer, type TestServer } from '../support/server.js';

/** Answers 500 to a request that asks for it: the one failure no client can cause. */
const failOnDemand: Step = {
  onRequest: ({ request }) => { if (request.headers.has('x-fail')) throw new Error('failing on purpose'); },
};

/** The access-log lines written from now on, by request id: status and sampling mark. */
function accessLog() {
  const lines = requestLines();
  return () => new Map(lines().map(({ requestId, status, sampled }) => [requestId!, { status, sampled }]));
}

afterEach(() => { vi.restoreAllMocks(); });

describe('the access log by default', () => {
  let api: TestServer;
  beforeAll(async () => { api = await startServer(); });
  afterAll(async () => { await api?.close(); });

  it('writes a line for every request, none of them marked as sampled', async () => {
    const lines = accessLog();
    for (let i = 0; i < 5; i++) expect((await api.get('/v1/pets?limit=1', { 'x-request-id': `every-${i}` })).status).toBe(200);
    expect([...lines()].filter(([id]) => id.startsWith('every-'))).toEqual(
      [0, 1, 2, 3, 4].map((i) => [`every-${i}`, { status: 200, sampled: undefined }]),
    );
  });
});

describe('ACCESS_LOG_SAMPLE=0.000001', () => {
  let api: TestServer;
  beforeAll(async () => { api = await startServer({ env: { ACCESS_LOG_SAMPLE: '0.000001' }, steps: [failOnDemand] }); });
  afterAll(async () => { await api?.close(); });

  it('writes almost no line for requests that went well, and still returns each one\'s X-Request-Id', async () => {
    const lines = accessLog();
    for (let i = 0; i < 20; i++) {
      const reply = await api.get('/v1/pets?limit=1', { 'x-request-id': `quiet-${i}` });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-request-id')).toBe(`quiet-${i}`);
    }
    expect((await api.get('/v1/pets?limit=1', { 'x-request-id': '' })).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines().size).toBe(0);
  });

  it('marks the line of a request that went well and was kept with the share it was kept at', async () => {
    const lines = accessLog();
    vi.spyOn(Math, 'random').mockReturnValue(0);
    expect((await api.get('/v1/pets?limit=1', { 'x-request-id': 'kept' })).status).toBe(200);
    expect(lines().get('kept')).toEqual({ status: 200, sampled: 0.000001 });
  });

  it('writes a line for every answer of 400 and above, unmarked: sampling never hides a failure', async () => {
    const lines = accessLog();
    const { auth } = await api.newKey('enterprise', { perMinute: 1, perDay: 1_000 });
    const answers = {
      'not-found': await api.get('/v1/pets/987654321', { 'x-request-id': 'not-found' }),
      'bad-key': await api.get('/v1/pets', { authorization: 'Bearer ask_notakeynotakeynotakeynotakeynotakeynota', 'x-request-id': 'bad-key' }),
      'first': await api.get('/v1/pets?limit=1', { ...auth, 'x-request-id': 'first' }),
      'limited': await api.get('/v1/pets?limit=1', { ...auth, 'x-request-id': 'limited' }),
      'failed': await api.get('/v1/pets', { 'x-fail': '1', 'x-request-id': 'failed' }),
    };
    expect(Object.fromEntries(Object.entries(answers).map(([id, reply]) => [id, [reply.status, reply.headers.get('x-request-id')]]))).toEqual({
      'not-found': [404, 'not-found'], 'bad-key': [401, 'bad-key'], 'first': [200, 'first'], 'limited': [429, 'limited'], 'failed': [500, 'failed'],
    });
    expect(Object.fromEntries(lines())).toEqual({
      'not-found': { status: 404, sampled: undefined },
      'bad-key': { status: 401, sampled: undefined },
      'limited': { status: 429, sampled: undefined },
      'failed': { status: 500, sampled: undefined },
    });
  });
});
