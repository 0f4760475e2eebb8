import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPair } from '../support/server.js';
import { redisCluster, type RedisClusterLab } from './lab/redis-cluster.js';

let lab: RedisClusterLab;
const pairs: Awaited<ReturnType<typeof startPair>>[] = [];
beforeAll(async () => { lab = await redisCluster({ masters: 3 }); }, 60_000);
afterAll(async () => {
  for (const pair of pairs) await pair.stop();
  await lab?.stop();
});

const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'));

describe('limits on a Redis Cluster', () => {
  it('two instances share one budget, one script call a request, and go on counting after SCRIPT FLUSH', async () => {
    const pair = await startPair({ REDIS_CLUSTER_NODES: lab.settings });
    pairs.push(pair);
    const { a, b } = pair;
    // Each master is checked on its own (the health check pings them after its first second).
    const masters = Object.fromEntries((await lab.masters()).map((port) => [`127.0.0.1:${port}`, 'up']));
    await expect.poll(async () => (await (await fetch(`${a.url}/readyz`)).json()), { timeout: 5_000 })
      .toEqual({ status: 'ready', checks: { database: 'up', redis: 'up', redisNodes: masters } });

    const { auth } = await a.newKey('free');
    await lab.resetStats();
    for (let i = 1; i <= 60; i += 1) {
      const res = await (i % 2 ? a : b).get('/v1/pets', auth);
      expect(res.status).toBe(200);
      expect(remaining(res)).toBe(60 - i);
    }
    const stats = await lab.commandStats();
    // The take-points script, once a request (EVAL where a node did not have it yet), and nothing of
    // rate-limiter-flexible's own path (MULTI, GET, PTTL, one script per window).
    expect((stats.evalsha ?? 0) + (stats.eval ?? 0)).toBe(60);
    expect(stats.multi ?? 0).toBe(0);
    expect(stats.pttl ?? 0).toBe(0);
    // The script path never fell back: the metric has no series at all.
    for (const api of [a, b]) expect(await (await fetch(`${api.url}/metrics`)).text()).not.toMatch(/^animal_store_redis_fallbacks_total\{/m);
    expect((await b.get('/v1/pets', auth)).status).toBe(429);
    expect((await a.get('/v1/pets', auth)).status).toBe(429);

    // Every master forgets its scripts (a restart, a failover to a fresh replica): ioredis sends the script again.
    for (const port of await lab.masters()) {
      const client = new Redis({ port, host: '127.0.0.1' });
      await client.script('FLUSH');
      client.disconnect();
    }
    const other = await a.newKey('free');
    expect(remaining(await a.get('/v1/pets', other.auth))).toBe(59);
    expect(remaining(await b.get('/v1/pets', other.auth))).toBe(58);
  });
});
