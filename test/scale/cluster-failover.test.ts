import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { requestStream } from '../support/request-stream.js';
import { startPair, type TestServer } from '../support/server.js';
import { subscribe } from '../support/sse.js';
import { labPerFile } from './lab/per-file.js';
import { redisCluster } from './lab/redis-cluster.js';

const held = labPerFile(() => redisCluster({ masters: 3, replicasEach: 1 }));

const DEADLINE_MS = 300;
const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'));
const PET_EVENTS = 'subscription { petChanged { kind pet { name } } }';

/** The port of the master serving `key`'s slot now. */
async function masterOf(key: string): Promise<number> {
  const slot = calculateSlot(key);
  const client = new Redis({ port: (await held.lab.masters())[0]!, host: '127.0.0.1' });
  try {
    const ranges = await client.cluster('SLOTS');
    return ranges.find(([from, to]) => slot >= from && slot <= to)![2]![1];
  } finally {
    client.disconnect();
  }
}

const fallbacks = async (api: TestServer) => {
  const text = await (await fetch(`${api.url}/metrics`)).text();
  return Number(/^animal_store_redis_fallbacks_total\{path="limits",reason="deadline"\} (\d+)/m.exec(text)?.[1] ?? 0);
};

describe('a Redis Cluster master killed under a stream of requests', () => {
  it('answers every request within the deadline, counts the fallbacks, counts in Redis again after the failover and keeps its streams', async () => {
    const env = { REDIS_CLUSTER_NODES: held.lab.settings, REDIS_CALL_DEADLINE_MS: String(DEADLINE_MS) };
    const pair = await startPair(env);
    held.pairs.push(pair);
    const { a, b } = pair;
    const { auth, id } = await a.newKey('enterprise', { perMinute: 100_000, perDay: 1_000_000 });
    expect(remaining(await a.get('/v1/pets', auth))).toBe(99_999);
    expect(remaining(await b.get('/v1/pets', auth))).toBe(99_998);
    expect(await fallbacks(a) + await fallbacks(b)).toBe(0);
    const onB = await subscribe(b.url, PET_EVENTS, b.headers);
    held.streams.push(onB);

    const owner = await masterOf(`{key:${id}}`);
    // One client on each instance, one request after another, with the key whose counts are watched.
    const requests = [{ what: 'GET /v1/pets', send: (api: TestServer) => api.get('/v1/pets', auth) }];
    const streamsOfRequests = [requestStream(a, 1, requests), requestStream(b, 1, requests)];
    await new Promise((resolve) => setTimeout(resolve, 300));
    await held.lab.kill(owner);
    await expect.poll(() => masterOf(`{key:${id}}`).catch(() => owner), { timeout: 20_000, interval: 200 }).not.toBe(owner);
    // The streams used the watched key too: stopped, so the check below sees only its own requests.
    for (const stream of streamsOfRequests) await stream.stop();
    // Within 5 s of the new master, one instance's request is seen by the other's next one again.
    await expect.poll(async () => {
      const first = remaining(await a.get('/v1/pets', auth));
      return remaining(await b.get('/v1/pets', auth)) === first - 1;
    }, { timeout: 5_000, interval: 200 }).toBe(true);
    const answers = streamsOfRequests.flatMap((stream) => stream.answers);

    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([200]));
    expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(DEADLINE_MS + 100);
    expect(await fallbacks(a) + await fallbacks(b)).toBeGreaterThan(0);
    await expect.poll(async () => {
      await a.post('/v1/pets', { name: 'After the failover', categoryId: 1 });
      return (await onB.next(1_000).catch(() => undefined))?.data?.petChanged?.pet?.name;
    }, { timeout: 15_000, interval: 500 }).toBe('After the failover');
  });
});
