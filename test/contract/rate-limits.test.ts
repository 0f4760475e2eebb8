import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

// The server's time, which stands still until a test moves it (real time may cross a minute meanwhile).
const unix = () => Math.floor(api.clock.now() / 1000);
const limitHeaders = (res: { headers: Headers }) => ({
  limit: Number(res.headers.get('x-ratelimit-limit')),
  remaining: Number(res.headers.get('x-ratelimit-remaining')),
  reset: Number(res.headers.get('x-ratelimit-reset')),
  retryAfter: res.headers.get('retry-after'),
});

let api: TestServer;
beforeAll(async () => { api = await startServer(); });
afterAll(async () => { await api?.close(); });

describe('a free key', () => {
  it('is allowed 60 requests a minute, counted down in the headers, and refused the 61st', async () => {
    const { auth } = await api.newKey('free');
    const first = await api.get('/v1/pets', auth);
    expect(first.status).toBe(200);
    const h = limitHeaders(first);
    expect(h).toMatchObject({ limit: 60, remaining: 59, retryAfter: null });
    expect(h.reset).toBeGreaterThan(unix());
    expect(h.reset).toBeLessThanOrEqual(unix() + 61);

    for (let i = 2; i <= 60; i += 1) {
      const res = i % 2 ? await api.get('/v1/pets', auth) : await api.gql('{ pets(limit: 1) { id } }', {}, auth);
      expect(res.status).toBe(200);
      expect(limitHeaders(res).remaining).toBe(60 - i);
    }

    const refused = await api.get('/v1/pets', auth);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
    expect(refused.body).toEqual({ code: 'RATE_LIMITED', message: expect.stringContaining('60 requests per minute'), status: 429 });
    const r = limitHeaders(refused);
    expect(r).toMatchObject({ limit: 60, remaining: 0 });
    expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(r.retryAfter)).toBeLessThanOrEqual(60);
    expect(r.reset).toBeGreaterThanOrEqual(unix());

    const gql = await api.gql('{ pets { id } }', {}, auth);
    expect(gql.status).toBe(429);
    expect(gql.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'RATE_LIMITED', status: 429 } }] });
    expect(gql.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('counts every request, errors included, and says so on each', async () => {
    const { auth } = await api.newKey('free');
    expect(limitHeaders(await api.get('/v1/pets?limit=0', auth))).toMatchObject({ limit: 60, remaining: 59 });
    expect(limitHeaders(await api.get('/v1/nope', auth))).toMatchObject({ limit: 60, remaining: 58 });
    expect(limitHeaders(await api.get('/v1/pets/999999', auth))).toMatchObject({ limit: 60, remaining: 57 });
  });
});

describe('plans', () => {
  it.each([['pro', 300], ['business', 1000]])('a %s key is held to %i a minute', async (plan, perMinute) => {
    const { auth } = await api.newKey(plan);
    expect(limitHeaders(await api.get('/v1/pets', auth))).toMatchObject({ limit: perMinute, remaining: perMinute - 1 });
  });

  it('an enterprise key with --per-day 5 is refused its 6th request until 00:00 UTC', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 100, perDay: 5 });
    for (let i = 1; i <= 5; i += 1) {
      const res = await api.get('/v1/pets', auth);
      expect(res.status).toBe(200);
      // The day window has fewer left than the minute: its numbers are the ones shown.
      expect(limitHeaders(res)).toMatchObject({ limit: 5, remaining: 5 - i });
    }
    const refused = await api.get('/v1/pets', auth);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('per day') });
    const r = limitHeaders(refused);
    // The day window resets at 00:00 UTC.
    const midnight = Math.floor(api.clock.now() / 86_400_000 + 1) * 86_400_000;
    expect(r).toMatchObject({ limit: 5, remaining: 0, reset: Math.ceil(midnight / 1000) });
    expect(r.retryAfter).toBe(String(Math.ceil((midnight - api.clock.now()) / 1000)));
  });

  it('on a tie the shorter window is shown', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 5, perDay: 5 });
    const h = limitHeaders(await api.get('/v1/pets', auth));
    expect(h).toMatchObject({ limit: 5, remaining: 4 });
    expect(h.reset).toBeLessThanOrEqual(unix() + 61);
  });
});

describe('windows and bans, by the clock', () => {
  it('refused requests count against no window', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 3, perDay: 5 });
    for (let i = 0; i < 3; i += 1) expect((await api.get('/v1/pets', auth)).status).toBe(200);
    expect((await api.get('/v1/pets', auth)).status).toBe(429);
    expect((await api.get('/v1/pets', auth)).status).toBe(429);
    api.clock.advance(60_000);
    const after = await api.get('/v1/pets', auth);
    expect(after.status).toBe(200);
    // 4 of 5 used today: had the refusals counted, the day would be spent.
    expect(limitHeaders(after)).toMatchObject({ limit: 5, remaining: 1 });
  });

  it('windows are aligned to the clock: the minute resets at the next whole minute', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 2, perDay: 100 });
    const nextMinute = Math.floor(api.clock.now() / 60_000 + 1) * 60_000;
    const first = await api.get('/v1/pets', auth);
    expect(limitHeaders(first)).toMatchObject({ limit: 2, remaining: 1, reset: Math.ceil(nextMinute / 1000) });
    expect((await api.get('/v1/pets', auth)).status).toBe(200);
    const refused = await api.get('/v1/pets', auth);
    expect(limitHeaders(refused)).toMatchObject({ remaining: 0, retryAfter: String(Math.ceil((nextMinute - api.clock.now()) / 1000)) });
    api.clock.advance(nextMinute - api.clock.now() - 1);
    expect((await api.get('/v1/pets', auth)).status).toBe(429);
    api.clock.advance(1);
    expect(limitHeaders(await api.get('/v1/pets', auth))).toMatchObject({ limit: 2, remaining: 1 });
  });

  it('bans a key for BAN_SECONDS after 20 refusals, then lets it back', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 1, perDay: 1_000 });
    expect((await api.get('/v1/pets', auth)).status).toBe(200);
    for (let i = 0; i < 20; i += 1) {
      const res = await api.get('/v1/pets', auth);
      expect(res.status).toBe(429);
      expect(res.body.code).toBe('RATE_LIMITED');
    }
    const banned = await api.get('/v1/pets', auth);
    expect(banned.status).toBe(429);
    expect(banned.body).toEqual({ code: 'API_KEY_BANNED', message: expect.stringContaining('banned for 600 s'), status: 429 });
    expect(limitHeaders(banned)).toMatchObject({ remaining: 0, retryAfter: '600' });
    const gql = await api.gql('{ pets { id } }', {}, auth);
    expect(gql.status).toBe(429);
    expect(gql.body.errors[0].extensions).toEqual({ code: 'API_KEY_BANNED', status: 429 });

    api.clock.advance(599_000);
    expect(limitHeaders(await api.get('/v1/pets', auth))).toMatchObject({ remaining: 0, retryAfter: '1' });
    api.clock.advance(1_000);
    expect((await api.get('/v1/pets', auth)).status).toBe(200);
  });
});

describe('requests without a valid key', () => {
  it('are limited per client address, so guessing keys is slow', async () => {
    const guarded = await startServer({ env: { ANONYMOUS_PER_MINUTE: '3' } });
    try {
      const guesses: Record<string, string>[] = [{}, { authorization: `Bearer ask_${'B'.repeat(43)}` }, { authorization: 'Basic x' }];
      for (const [i, headers] of guesses.entries()) {
        const res = await fetch(`${guarded.url}/v1/pets`, { headers });
        expect(res.status).toBe(401);
        expect(limitHeaders(res)).toMatchObject({ limit: 3, remaining: 2 - i });
      }
      const refused = await fetch(`${guarded.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ pets { id } }"}' });
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'RATE_LIMITED', status: 429 } }] });
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      // A valid key has a budget of its own.
      expect((await guarded.get('/v1/pets')).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  it('trust X-Forwarded-For only when TRUST_PROXY says so', async () => {
    const direct = await startServer({ env: { ANONYMOUS_PER_MINUTE: '2' } });
    const proxied = await startServer({ env: { ANONYMOUS_PER_MINUTE: '2', TRUST_PROXY: 'true' } });
    try {
      const from = (ip: string) => ({ 'x-forwarded-for': `10.9.9.9, ${ip}` });
      // Direct: the header is ignored; every request comes from the socket's address.
      expect((await fetch(`${direct.url}/v1/pets`, { headers: from('203.0.113.1') })).status).toBe(401);
      expect((await fetch(`${direct.url}/v1/pets`, { headers: from('203.0.113.2') })).status).toBe(401);
      expect((await fetch(`${direct.url}/v1/pets`, { headers: from('203.0.113.3') })).status).toBe(429);
      // Behind one proxy: the address it appended is the client's, whatever the client claimed before it.
      for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
        expect((await fetch(`${proxied.url}/v1/pets`, { headers: from(ip) })).status).toBe(401);
      }
      expect((await fetch(`${proxied.url}/v1/pets`, { headers: from('203.0.113.1') })).status).toBe(401);
      expect((await fetch(`${proxied.url}/v1/pets`, { headers: from('203.0.113.1') })).status).toBe(429);
    } finally {
      await direct.close();
      await proxied.close();
    }
  });
});
