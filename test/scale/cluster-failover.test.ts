import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { subscribe, type EventStream } from '../support/sse.js';
import { redisCluster, type RedisClusterLab } from './lab/redis-cluster.js';

let lab: RedisClusterLab;
const servers: TestServer[] = [];
const streams: EventStream[] = [];
beforeAll(async () => { lab = await redisCluster({ masters: 3, replicasEach: 1 }); }, 60_000);
afterAll(async () => {
  for (const stream of streams) stream.close();
  for (const server of servers.reverse()) await server.stop();
  await servers[0]?.store.drop();
  await lab?.stop();
});

const DEADLINE_MS = 300;
const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'));
const PET_EVENTS = 'subscription { petChanged { kind pet { name } } }';

/** The port of the master serving `key`'s slot now. */
async function masterOf(key: string): Promise<number> {
  const slot = calculateSlot(key);
  const client = new Redis({ port: (await lab.masters())[0]!, host: '127.0.0.1' });
  try {
    const ranges = await client.cluster('SLOTS');
    return ranges.find(([from, to]) => slot >= from && slot <= to)![2]![1];
  } finally {
    client.disconnect();
  }
}

const fallbacks = async (api: TestServer) => {
  const text = await (await fetch(`${api.url}/metrics`)).text();
  return Number(/^redis_fallbacks_total\{path="limits",reason="deadline"\} (\d+)/m.exec(text)?.[1] ?? 0);
};

describe('a Redis Cluster master killed under a stream of requests', () => {
  it('answers every request within the deadline, counts the fallbacks, counts in Redis again after the failover and keeps its streams', async () => {
    const env = { REDIS_CLUSTER_NODES: lab.settings, REDIS_CALL_DEADLINE_MS: String(DEADLINE_MS) };
    const a = await startServer({ env });
    servers.push(a);
    const b = await startServer({ store: a.shared.store, clock: a.shared.clock, env: { ...a.shared.env, ...env } });
    servers.push(b);
    const { auth, id } = await a.newKey('enterprise', { perMinute: 100_000, perDay: 1_000_000 });
    expect(remaining(await a.get('/v1/pets', auth))).toBe(99_999);
    expect(remaining(await b.get('/v1/pets', auth))).toBe(99_998);
    expect(await fallbacks(a) + await fallbacks(b)).toBe(0);
    const onB = await subscribe(b.url, PET_EVENTS, b.headers);
    streams.push(onB);

    const owner = await masterOf(`{key:${id}}`);
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
    await lab.kill(owner);
    await expect.poll(() => masterOf(`{key:${id}}`).catch(() => owner), { timeout: 20_000, interval: 200 }).not.toBe(owner);
    // Within 5 s of the new master, one instance's request is seen by the other's next one again.
    await expect.poll(async () => {
      const first = remaining(await a.get('/v1/pets', auth));
      return remaining(await b.get('/v1/pets', auth)) === first - 1;
    }, { timeout: 5_000, interval: 200 }).toBe(true);
    running = false;
    await stream;

    expect([...statuses.keys()]).toEqual([200]);
    expect(slowest.ms).toBeLessThan(DEADLINE_MS + 100);
    expect(await fallbacks(a) + await fallbacks(b)).toBeGreaterThan(0);
    await expect.poll(async () => {
      await a.post('/v1/pets', { name: 'After the failover', categoryId: 1 });
      return (await onB.next(1_000).catch(() => undefined))?.data?.petChanged?.pet?.name;
    }, { timeout: 15_000, interval: 500 }).toBe('After the failover');
  });
});
