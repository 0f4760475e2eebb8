import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { subscribe, type EventStream } from '../support/sse.js';
import { redisSentinel, SENTINEL_MASTER, type RedisSentinelLab } from './lab/redis-sentinel.js';

let lab: RedisSentinelLab;
const servers: TestServer[] = [];
const streams: EventStream[] = [];
beforeAll(async () => { lab = await redisSentinel(); }, 60_000);
afterAll(async () => {
  for (const stream of streams) stream.close();
  for (const server of servers.reverse()) await server.stop();
  await servers[0]?.store.drop();
  await lab?.stop();
});

const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'));
const PET_EVENTS = 'subscription { petChanged { kind pet { name } } }';

describe('Redis through Sentinel', () => {
  it('shares one budget, and through a failover answers every request in time, counts in Redis again and keeps its streams', async () => {
    const env = { REDIS_SENTINELS: lab.settings, REDIS_SENTINEL_MASTER: SENTINEL_MASTER };
    const a = await startServer({ env });
    servers.push(a);
    const b = await startServer({ store: a.shared.store, clock: a.shared.clock, env: { ...a.shared.env, ...env } });
    servers.push(b);
    const { auth } = await a.newKey('enterprise', { perMinute: 100_000, perDay: 1_000_000 });
    expect(remaining(await a.get('/v1/pets', auth))).toBe(99_999);
    expect(remaining(await b.get('/v1/pets', auth))).toBe(99_998);
    const onB = await subscribe(b.url, PET_EVENTS, b.headers);
    streams.push(onB);

    const old = await lab.master();
    const slowest = { ms: 0 };
    const statuses = new Map<number, number>();
    let running = true;
    const stream = (async () => {
      for (let i = 0; running; i++) {
        const started = performance.now();
        const res = await (i % 2 ? a : b).get('/v1/pets', auth);
        slowest.ms = Math.max(slowest.ms, performance.now() - started);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await lab.kill(old);
    await expect.poll(() => lab.master().catch(() => old), { timeout: 20_000, interval: 200 }).not.toBe(old);
    // Counting is shared again: one instance's request is seen by the other's next one.
    await expect.poll(async () => {
      const first = remaining(await a.get('/v1/pets', auth));
      return remaining(await b.get('/v1/pets', auth)) === first - 1;
    }, { timeout: 10_000, interval: 200 }).toBe(true);
    running = false;
    await stream;

    expect([...statuses.keys()]).toEqual([200]);
    expect(slowest.ms).toBeLessThan(500 + 100);
    // The subscriber followed the failover too: a change made now is heard.
    await expect.poll(async () => {
      await a.post('/v1/pets', { name: 'After the failover', categoryId: 1 });
      return (await onB.next(1_000).catch(() => undefined))?.data?.petChanged?.pet?.name;
    }, { timeout: 10_000, interval: 500 }).toBe('After the failover');
  });
});
