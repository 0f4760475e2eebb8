import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimited } from '../support/rate-limited.js';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
beforeAll(async () => { api = await startServer(); });
afterAll(async () => { await api?.close(); });

const remaining = (headers: Headers) => Number(headers.get('x-ratelimit-remaining'));

describe('the free quota look-up', () => {
  it('GET /v1/rate_limit tells the plan and each window, costs no point, and carries the headers', async () => {
    const { auth } = await api.newKey('free');
    await api.get('/v1/pets', auth);
    for (let i = 0; i < 3; i += 1) {
      const res = await api.get('/v1/rate_limit', auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        plan: 'free',
        windows: [
          { name: 'minute', limit: 60, remaining: 59, reset: expect.any(Number) },
          { name: 'day', limit: 1000, remaining: 999, reset: expect.any(Number) },
        ],
      });
      expect(res.body.windows[0].reset).toBe(Number(res.headers.get('x-ratelimit-reset')));
      expect(remaining(res.headers)).toBe(59);
      expect(res.headers.get('ratelimit')).toMatch(/^"minute";r=59;t=\d+, "day";r=999;t=\d+$/);
    }
  });

  it('answers when the budget is spent, with remaining 0', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 2, perDay: 50 });
    await api.get('/v1/pets', auth);
    await api.get('/v1/pets', auth);
    expect((await api.get('/v1/pets', auth)).status).toBe(429);
    const res = await api.get('/v1/rate_limit', auth);
    expect(res.status).toBe(200);
    expect(res.body.windows[0]).toMatchObject({ name: 'minute', limit: 2, remaining: 0 });
    expect(res.body.plan).toBe('enterprise');
  });

  it('GraphQL rateLimit is free alone, and adds nothing to an operation that has paid fields', async () => {
    const { auth } = await api.newKey('free');
    const alone = await api.gql('{ rateLimit { plan windows { name remaining } } }', undefined, auth);
    expect(alone.body.data.rateLimit).toEqual({ plan: 'free', windows: [{ name: 'minute', remaining: 60 }, { name: 'day', remaining: 1000 }] });
    expect(remaining(alone.headers)).toBe(60);
    const mixed = await api.gql('{ rateLimit { windows { remaining } } a: pets(limit: 1) { id } }', undefined, auth);
    expect(remaining(mixed.headers)).toBe(59);
    expect(mixed.body.data.rateLimit.windows[0].remaining).toBe(59);
  });

  it('needs a key, like every API call (401, counted against the address)', async () => {
    const res = await fetch(`${api.url}/v1/rate_limit`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    rateLimited(res.headers);
  });
});
