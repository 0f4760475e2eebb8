import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../support/time.js';
import { redisProxy, type RedisProxy } from '../system/redis-proxy.js';
import { redisSentinel, SENTINEL_MASTER, type RedisSentinelLab } from './lab/redis-sentinel.js';

let lab: RedisSentinelLab | undefined;
let proxy: RedisProxy | undefined;
const clients: Redis[] = [];
beforeAll(async () => {
  lab = await redisSentinel();
  proxy = await redisProxy(lab.settings, SENTINEL_MASTER);
}, 60_000);
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await proxy?.stop();
  await lab?.stop();
});

/** A client of the test's own: through the proxy, or straight to a node; it never reconnects on its own. */
const client = (to: string | number) => {
  const one = new Redis(typeof to === 'string' ? to : `redis://127.0.0.1:${to}`, { maxRetriesPerRequest: 0, retryStrategy: () => null });
  clients.push(one.on('error', () => undefined));
  return one;
};

/** The port of the Redis a client's connection ends at, as that Redis says. */
const portBehind = async (one: Redis) => Number(/^tcp_port:(\d+)/m.exec(await one.info('server'))?.[1]);

/** Whether `promise` has settled after `ms`. */
const settledWithin = (promise: Promise<unknown>, ms: number) => Promise.race([
  promise.then(() => true, () => true), sleep(ms).then(() => false),
]);

describe('the Redis proxy of the system run', () => {
  it('reaches the master that Sentinel names', async () => {
    const through = client(proxy!.url);
    expect(await portBehind(through)).toBe(await lab!.master());
    expect(await through.set('proxy:first', 'through')).toBe('OK');
    expect(await client(await lab!.master()).get('proxy:first')).toBe('through');
  });

  it('holds every byte both ways during a blackhole, on open and on new connections, then delivers them', async () => {
    const open = client(proxy!.url);
    await open.ping();
    const master = client(await lab!.master());
    const startedAt = Date.now();
    const over = proxy!.blackhole(1_500);
    const write = open.set('proxy:held', 'late');
    const opened = client(proxy!.url).ping();
    // Neither the command (Redis has not got it) nor an answer goes through.
    expect(await settledWithin(Promise.all([write, opened]), 1_000)).toBe(false);
    expect(await master.get('proxy:held')).toBeNull();
    await over;
    expect(await write).toBe('OK');
    expect(await opened).toBe('PONG');
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_500);
    expect(await master.get('proxy:held')).toBe('late');
  });

  it('closes a connection whose master is killed, and sends a new one to the master Sentinel promotes', async () => {
    const old = await lab!.master();
    const open = client(proxy!.url);
    expect(await portBehind(open)).toBe(old);
    const closed = new Promise((resolve) => open.once('close', resolve));
    await lab!.kill(old);
    await closed;
    await expect.poll(() => lab!.master().catch(() => old), { timeout: 15_000, interval: 200 }).not.toBe(old);
    const promoted = await lab!.master();
    // Until every Sentinel has switched, a connection may find no master (the proxy closes it): ask again.
    await expect.poll(async () => {
      const fresh = client(proxy!.url);
      try { return await portBehind(fresh); } catch { return undefined; } finally { fresh.disconnect(); }
    }, { timeout: 10_000, interval: 200 }).toBe(promoted);
  });
});
