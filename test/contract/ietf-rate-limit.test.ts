import { parseList, type Item } from 'structured-headers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
beforeAll(async () => { api = await startServer({ rateLimits: { banThreshold: 1_000 } }); });
afterAll(async () => { await api?.close(); });

/** A Structured Fields list of named policies, as a map from name to parameters. */
function policies(field: string | null): Map<string, Record<string, unknown>> {
  expect(field).toBeTruthy();
  return new Map(parseList(field!).map((member) => {
    const [value, parameters] = member as Item;
    expect(typeof value).toBe('string');
    return [value as string, Object.fromEntries(parameters)];
  }));
}

describe('the IETF RateLimit and RateLimit-Policy fields', () => {
  it('describe each window of the plan beside the X-RateLimit-* headers, on REST and GraphQL', async () => {
    const { auth } = await api.newKey('free');
    for (const [i, send] of [() => api.get('/v1/pets', auth), () => api.gql('{ pets { id } }', undefined, auth)].entries()) {
      const res = await send();
      expect(res.status).toBe(200);
      expect(policies(res.headers.get('ratelimit-policy'))).toEqual(new Map([['minute', { q: 60, w: 60 }], ['day', { q: 1000, w: 86_400 }]]));
      const state = policies(res.headers.get('ratelimit'));
      expect(state.get('minute')).toMatchObject({ r: 59 - i });
      expect(state.get('day')).toMatchObject({ r: 999 - i });
      for (const { t } of state.values()) expect(Number.isInteger(t) && (t as number) >= 0).toBe(true);
      expect(state.get('minute')!.t).toBeLessThanOrEqual(60);
      expect(Number(res.headers.get('x-ratelimit-remaining'))).toBe(state.get('minute')!.r);
    }
  });

  it('name the refusing window with r=0 and t = Retry-After on a 429', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 2, perDay: 100 });
    await api.get('/v1/pets', auth);
    await api.get('/v1/pets', auth);
    const refused = await api.get('/v1/pets', auth);
    expect(refused.status).toBe(429);
    const state = policies(refused.headers.get('ratelimit'));
    expect([...state.keys()]).toEqual(['minute']);
    expect(state.get('minute')).toEqual({ r: 0, t: Number(refused.headers.get('retry-after')) });
    expect(policies(refused.headers.get('ratelimit-policy')).get('minute')).toEqual({ q: 2, w: 60 });
  });

  it('describe the per-address window of a request without a key (401)', async () => {
    const res = await fetch(`${api.url}/v1/pets`);
    expect(res.status).toBe(401);
    expect(policies(res.headers.get('ratelimit-policy'))).toEqual(new Map([['minute', { q: 60, w: 60 }]]));
    expect(policies(res.headers.get('ratelimit')).get('minute')!.r).toBeLessThan(60);
  });
});
