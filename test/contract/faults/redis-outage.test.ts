import { afterEach, describe, expect, it } from 'vitest';
import { ownRedis } from '../../support/redis-server.js';
import { requestStream, timeUntil } from '../../support/request-stream.js';
import { startServer, type TestServer } from '../../support/server.js';
import { CACHE_FRESH_MS } from '../../../src/assembly/response-cache.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => { for (const step of cleanup.splice(0).reverse()) await step(); });

/** Two instances on one store and one Redis, and a key whose counts show whether they share a budget. */
async function twoInstances() {
  const redis = await ownRedis();
  cleanup.push(() => redis.stop());
  const a = await startServer({ env: { REDIS_URL: redis.url } });
  cleanup.push(() => a.close());
  const b = await startServer({ store: a.shared.store, clock: a.shared.clock, env: { ...a.shared.env, REDIS_URL: redis.url } });
  cleanup.push(() => b.stop());
  const { auth } = await a.newKey('enterprise', { perMinute: 1_000_000, perDay: 1_000_000 });
  const remaining = async (api: TestServer) => Number((await api.get('/v1/pets?limit=1', auth)).headers.get('x-ratelimit-remaining'));
  /** One budget: B's call sees A's. */
  const shared = async () => { const left = await remaining(a); return (await remaining(b)) === left - 1; };
  return { redis, a, b, shared };
}

const refusedOrFailed = (answers: { status: number }[]) => answers.filter((x) => x.status >= 500 || x.status === 429 || x.status === 0);

describe('Redis out of reach under a stream of requests', () => {
  it('killed: no 5xx and no 429, each instance limits on its own, and the budget is shared again within 5 s of Redis returning', async () => {
    const { redis, a, shared } = await twoInstances();
    expect(await shared()).toBe(true);
    const stream = requestStream(a);
    try {
      await timeUntil(() => stream.answers.length >= 10, 5_000);
      const faultAt = Date.now();
      await redis.kill();
      await timeUntil(async () => (await (await fetch(`${a.url}/readyz`)).json()).checks.redis === 'degraded', 3_000);
      expect(await shared()).toBe(false);
      await timeUntil(() => stream.since(faultAt).length >= 30, 5_000);
      expect(refusedOrFailed(stream.answers)).toEqual([]);

      const returnedAt = Date.now();
      await redis.start();
      const back = await timeUntil(shared, 5_000);
      await timeUntil(() => stream.since(returnedAt).length >= 10, 5_000);
      await stream.stop();
      expect(refusedOrFailed(stream.answers)).toEqual([]);
      console.info(`redis killed: ${stream.since(faultAt).length} requests, none refused or failed; shared again ${back} ms after Redis returned`);
      expect(back).toBeLessThan(5_000);
    } finally {
      await stream.stop();
    }
  }, 30_000);

  it('hung (SIGSTOP): requests go on, /readyz says degraded, and the budget is shared again within 5 s of Redis answering', async () => {
    const { redis, a, shared } = await twoInstances();
    const stream = requestStream(a);
    try {
      await timeUntil(() => stream.answers.length >= 10, 5_000);
      const faultAt = Date.now();
      redis.freeze();
      const noticed = await timeUntil(async () => (await (await fetch(`${a.url}/readyz`)).json()).checks.redis === 'degraded', 4_000);
      // Once the hang is noticed, requests no longer wait out Redis's command timeout.
      const afterNotice = Date.now();
      await timeUntil(() => stream.since(afterNotice).length >= 20, 5_000);
      // Reads no longer wait; a write waits out what its last write's record cannot tell the other instances
      // (the marker's call deadline, then the response cache's bound: docs/operations.md).
      const slowest = Math.max(...stream.since(afterNotice + 100).filter((x) => x.what !== 'POST /v1/pets').map((x) => x.ms));
      const slowestWrite = Math.max(...stream.since(afterNotice + 100).filter((x) => x.what === 'POST /v1/pets').map((x) => x.ms));
      expect(refusedOrFailed(stream.answers)).toEqual([]);

      const thawedAt = Date.now();
      redis.thaw();
      const back = await timeUntil(shared, 5_000);
      await stream.stop();
      expect(refusedOrFailed(stream.answers)).toEqual([]);
      console.info(`redis hung: noticed after ${noticed} ms (/readyz degraded); slowest request after that ${slowest} ms; ${stream.since(faultAt).length} requests, none refused or failed; shared again ${back} ms after Redis answered (asked ${Date.now() - thawedAt} ms ago)`);
      // A read that waited out Redis takes at least the call deadline; one that did not, less. (On the
      // embedded store, beside the whole suite, two runs in five had a read of 402 and 405 ms: the slow
      // ones are named in the message, to find out why.)
      expect(slowest, JSON.stringify(stream.since(afterNotice + 100).filter((x) => x.ms >= 100))).toBeLessThan(a.config.redis!.callDeadlineMs);
      expect(slowestWrite).toBeLessThan(a.config.redis!.callDeadlineMs + CACHE_FRESH_MS + 100 + 400);
      expect(back).toBeLessThan(5_000);
    } finally {
      await stream.stop();
    }
  }, 30_000);
});
