import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneEvents } from '../../src/db/outbox.js';
import { prepared } from '../../src/db/prepared.js';
import type { Step } from '../../src/pipeline/pipeline.js';
import { openStore } from '../support/backend.js';
import { rateLimited } from '../support/rate-limited.js';
import { startServer, type TestServer } from '../support/server.js';

const PROBLEM = 'application/problem+json';
const QUOTA_EXCEEDED = 'https://iana.org/assignments/http-problem-types#quota-exceeded';

/** Hears a request being held: by then it has passed every step before the test's (its claim made). */
let holding = () => {};

/** Fails a request that asks it to (500), or holds it a while (a first request still running). */
function useTestHooks(): Step {
  return {
    async onRequest({ request }) {
      if (request.headers.get('x-fail')) throw new TypeError('kaboom');
      const hold = Number(request.headers.get('x-hold') ?? 0);
      if (hold > 0) {
        holding();
        await new Promise((resolve) => setTimeout(resolve, hold));
      }
    },
  };
}

let api: TestServer;
beforeAll(async () => { api = await startServer({ steps: [useTestHooks()], rateLimits: { banThreshold: 2 } }); });
afterAll(async () => { await api?.close(); });

interface Sent { method?: string; path: string; headers?: Record<string, string>; body?: string }

const send = ({ method = 'GET', path, headers = {}, body }: Sent, accept?: string) => fetch(`${api.url}${path}`, {
  method, body, headers: { 'content-type': 'application/json', ...headers, ...(accept ? { accept } : {}) },
});

/** The problem details of a refusal, and its Error body for the same request sent without asking. */
async function both(request: Sent | (() => Sent | Promise<Sent>)) {
  const made = async () => (typeof request === 'function' ? request() : request);
  const problem = await send(await made(), `application/json;q=0.5, ${PROBLEM}`);
  const plain = await send(await made());
  return { problem, problemBody: await problem.json(), plain, plainBody: await plain.json() };
}

const expectProblem = (res: Response, body: any, status: number, code: string, title: string) => {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(body).toMatchObject({ type: 'about:blank', title, status, code, detail: expect.any(String) });
  expect(body.instance).toBe(res.headers.get('x-request-id'));
};

const expectPlain = (res: Response, body: any, status: number, code: string) => {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(body).toEqual({ code, message: expect.any(String), status });
};

describe('Accept: application/problem+json on REST', () => {
  let restricted: Record<string, string>;
  let petWithOrder: number;
  beforeAll(async () => {
    restricted = (await api.newKey('free', {}, 'orders:read')).auth;
    petWithOrder = (await api.post('/v1/pets', { name: 'Ordered', categoryId: 1 })).body.id;
    expect((await api.post('/v1/store/orders', { petId: petWithOrder })).status).toBe(201);
  });

  const cases: [string, number, string, () => Sent | Promise<Sent>][] = [
    ['Bad Request', 400, 'BAD_REQUEST', () => ({ path: '/v1/pets?limit=0', headers: api.headers })],
    ['Unauthorized', 401, 'UNAUTHENTICATED', () => ({ path: '/v1/pets' })],
    ['Forbidden', 403, 'FORBIDDEN', () => ({ path: '/v1/pets', headers: restricted })],
    ['Not Found', 404, 'NOT_FOUND', () => ({ path: '/v1/pets/987654321', headers: api.headers })],
    ['Not Found', 404, 'NOT_FOUND', () => ({ path: '/v1/nowhere', headers: api.headers })],
    ['Method Not Allowed', 405, 'METHOD_NOT_ALLOWED', () => ({ method: 'PUT', path: '/v1/pets', headers: api.headers })],
    ['Conflict', 409, 'CONFLICT', () => ({ method: 'DELETE', path: `/v1/pets/${petWithOrder}`, headers: api.headers })],
    ['Payload Too Large', 413, 'PAYLOAD_TOO_LARGE', () => ({ method: 'POST', path: '/v1/pets', headers: api.headers, body: `{"name":"${'x'.repeat(70_000)}"}` })],
    ['Unsupported Media Type', 415, 'UNSUPPORTED_MEDIA_TYPE', () => ({ method: 'POST', path: '/v1/pets', headers: { ...api.headers, 'content-type': 'text/plain' }, body: 'x' })],
    ['Internal Server Error', 500, 'INTERNAL', () => ({ path: '/v1/pets', headers: { ...api.headers, 'x-fail': '1' } })],
  ];

  it.each(cases)('%s (%s %s): problem details on request, the Error body otherwise, the same headers', async (title, status, code, request) => {
    const { problem, problemBody, plain, plainBody } = await both(request);
    expectProblem(problem, problemBody, status, code, title);
    expectPlain(plain, plainBody, status, code);
    expect(problemBody.detail).toBe(plainBody.message);
    for (const name of ['www-authenticate', 'allow', 'retry-after']) expect(problem.headers.get(name), name).toBe(plain.headers.get(name));
    rateLimited(problem.headers);
  });

  it('idempotency refusals (409 in progress, 422 reused), an event id never given out (400) and one whose successors expired (410)', async () => {
    const key = `problem-${Date.now()}`;
    const held = new Promise<void>((resolve) => { holding = resolve; });
    const first = send({ method: 'POST', path: '/v1/pets', headers: { ...api.headers, 'idempotency-key': key, 'x-hold': '400' }, body: '{"name":"Once","categoryId":1}' });
    await held;
    const busy = await send({ method: 'POST', path: '/v1/pets', headers: { ...api.headers, 'idempotency-key': key }, body: '{"name":"Once","categoryId":1}' }, PROBLEM);
    expectProblem(busy, await busy.json(), 409, 'IDEMPOTENCY_IN_PROGRESS', 'Conflict');
    expect(busy.headers.get('retry-after')).toBe('1');
    expect((await first).status).toBe(201);
    const reused = await send({ method: 'POST', path: '/v1/pets', headers: { ...api.headers, 'idempotency-key': key }, body: '{"name":"Other","categoryId":1}' }, PROBLEM);
    expectProblem(reused, await reused.json(), 422, 'IDEMPOTENCY_KEY_REUSED', 'Unprocessable Entity');
    const never = await send({ path: '/v1/events?after=9007199254740991', headers: api.headers }, PROBLEM);
    expectProblem(never, await never.json(), 400, 'BAD_REQUEST', 'Bad Request');

    const db = await openStore(api.store);
    try {
      const last = Number((await db.query('SELECT COALESCE(MAX(id), 0) AS id FROM events'))[0].id);
      await api.post('/v1/pets', { name: 'Kept', categoryId: 1 });
      await pruneEvents(prepared(db), api.clock.now() + 1);
      const expired = await send({ path: `/v1/events?after=${last - 1}`, headers: api.headers }, PROBLEM);
      expectProblem(expired, await expired.json(), 410, 'EVENTS_EXPIRED', 'Gone');
    } finally {
      await db.destroy();
    }
  });

  it('429s are quota-exceeded problems naming the refusing window, then the ban', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 1, perDay: 1_000 });
    expect((await send({ path: '/v1/pets', headers: auth })).status).toBe(200);
    const limited = await send({ path: '/v1/pets', headers: auth }, PROBLEM);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await limited.json()).toEqual({
      type: QUOTA_EXCEEDED, title: 'Quota exceeded', status: 429, code: 'RATE_LIMITED', 'violated-policies': ['minute'],
      detail: 'Rate limit exceeded: 1 requests per minute; retry after the Retry-After seconds', instance: limited.headers.get('x-request-id'),
    });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The ban threshold is 2 refusals: the third refusal starts the ban.
    expect((await send({ path: '/v1/pets', headers: auth })).status).toBe(429);
    const banned = await send({ path: '/v1/pets', headers: auth }, PROBLEM);
    expect(banned.status).toBe(429);
    expect(await banned.json()).toMatchObject({ type: QUOTA_EXCEEDED, code: 'API_KEY_BANNED', 'violated-policies': ['minute'] });
  });

  it('keeps the Error body for a client that does not ask, or asks with q=0, or only for */*', async () => {
    for (const accept of [undefined, '*/*', 'application/json', `${PROBLEM};q=0`, 'application/problem+xml']) {
      const res = await send({ path: '/v1/pets?limit=0', headers: api.headers }, accept);
      expectPlain(res, await res.json(), 400, 'BAD_REQUEST');
    }
  });

  it('leaves GraphQL\'s error shape alone', async () => {
    const res = await fetch(`${api.url}/graphql`, {
      method: 'POST', headers: { ...api.headers, 'content-type': 'application/json', accept: `${PROBLEM}, application/json` },
      body: JSON.stringify({ query: '{ pets(limit: 0) { id } }' }),
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await res.json()).errors[0].extensions.code).toBe('BAD_REQUEST');
  });
});
