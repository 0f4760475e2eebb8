import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { tcpProxy } from '../support/tcp-proxy.js';

const redisUrl = process.env.TEST_REDIS_URL;
const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'));
const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers.reverse()) await server.stop();
  await servers[0]?.store.drop();
});

describe.runIf(redisUrl)('limits in Redis', () => {
  it('two instances on one database and one Redis share a single budget', async () => {
    const a = await startServer({ env: { REDIS_URL: redisUrl! } });
    servers.push(a);
    const b = await startServer({ store: a.shared.store, clock: a.shared.clock, env: { ...a.shared.env, REDIS_URL: redisUrl! } });
    servers.push(b);
    const { auth } = await a.newKey('free');
    for (let i = 1; i <= 60; i += 1) {
      const res = await (i % 2 ? a : b).get('/v1/pets', auth);
      expect(res.status).toBe(200);
      expect(remaining(res)).toBe(60 - i);
    }
    expect((await a.get('/v1/pets', auth)).status).toBe(429);
    expect((await b.get('/v1/pets', auth)).status).toBe(429);
  });

  it('keeps every key of one subject in one Cluster hash slot, so the one script call may take them all', async () => {
    const api = await startServer({ env: { REDIS_URL: redisUrl!, BAN_THRESHOLD: '1' } });
    servers.push(api);
    const { auth, id } = await api.newKey('enterprise', { perMinute: 1, perDay: 100 });
    expect((await api.get('/v1/pets', auth)).status).toBe(200);
    // Refused, then refused past the threshold: the refusals' counter and the ban are written too.
    expect((await api.get('/v1/pets', auth)).status).toBe(429);
    expect((await api.get('/v1/pets', auth)).status).toBe(429);
    const redis = new Redis(redisUrl!);
    try {
      const keys = (await redis.keys(`${api.shared.env.REDIS_PREFIX}:*`)).filter((key) => key.includes(`{key:${id}}`));
      expect(keys.map((key) => key.split(':')[1]).sort()).toEqual(['bans', 'day', 'minute', 'refusals']);
      expect(new Set(keys.map((key) => calculateSlot(key)))).toEqual(new Set([calculateSlot(`{key:${id}}`)]));
    } finally {
      redis.disconnect();
    }
  });

  it('keep serving, limited per instance, while Redis is away, and share again when it returns', async () => {
    const target = new URL(redisUrl!);
    const proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const api = await startServer({ env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` } });
    servers.push(api);
    try {
      const { auth } = await api.newKey('free');
      expect(remaining(await api.get('/v1/pets', auth))).toBe(59);
      expect(await (await fetch(`${api.url}/readyz`)).json()).toMatchObject({ status: 'ready', checks: { redis: 'up' } });

      await proxy.cut();
      const during = await api.get('/v1/pets', auth);
      expect(during.status).toBe(200);
      // The insurance limiter counts from scratch in this process.
      expect(during.headers.get('x-ratelimit-limit')).toBe('60');
      expect(remaining(during)).toBe(59);
      expect(await (await fetch(`${api.url}/readyz`)).json()).toMatchObject({ status: 'degraded', checks: { database: 'up', redis: 'degraded' } });
      expect((await api.post('/v1/pets', { name: 'During', categoryId: 1 }, auth)).status).toBe(201);

      await proxy.restore();
      await expect.poll(async () => (await (await fetch(`${api.url}/readyz`)).json()).checks.redis, { timeout: 5_000 }).toBe('up');
      // Back in Redis, where the first request of this minute was counted.
      expect(remaining(await api.get('/v1/pets', auth))).toBe(58);
    } finally {
      await proxy.cut();
    }
  });
});

describe('a server whose Redis is unreachable from the start', () => {
  it('serves requests, with the headers, limiting in process', async () => {
    const api = await startServer({ env: { REDIS_URL: 'redis://127.0.0.1:1', ANONYMOUS_PER_MINUTE: '2' } });
    try {
      const { auth } = await api.newKey('free');
      const res = await api.get('/v1/pets', auth);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('60');
      expect(remaining(res)).toBe(59);
      expect(remaining(await api.get('/v1/pets', auth))).toBe(58);
      expect((await fetch(`${api.url}/v1/pets`)).status).toBe(401);
      expect((await fetch(`${api.url}/v1/pets`)).status).toBe(401);
      expect((await fetch(`${api.url}/v1/pets`)).status).toBe(429);
      expect(await (await fetch(`${api.url}/readyz`)).json()).toMatchObject({ status: 'degraded', checks: { redis: 'degraded' } });
    } finally {
      await api.close();
    }
  });
});
