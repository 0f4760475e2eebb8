import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestStream } from '../support/request-stream.js';
import { startPair, type TestServer } from '../support/server.js';
import { subscribe, type EventStream } from '../support/sse.js';
import { redisSentinel, SENTINEL_MASTER, type RedisSentinelLab } from './lab/redis-sentinel.js';

let lab: RedisSentinelLab;
const pairs: Awaited<ReturnType<typeof startPair>>[] = [];
const streams: EventStream[] = [];
beforeAll(async () => { lab = await redisSentinel(); }, 60_000);
afterAll(async () => {
  for (const stream of streams) stream.close();
  for (const pair of pairs) await pair.stop();
  await lab?.stop();
});

const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'));
const PET_EVENTS = 'subscription { petChanged { kind pet { name } } }';

describe('Redis through Sentinel', () => {
  it('shares one budget, and through a failover answers every request in time, counts in Redis again and keeps its streams', async () => {
    const env = { REDIS_SENTINELS: lab.settings, REDIS_SENTINEL_MASTER: SENTINEL_MASTER };
    const pair = await startPair(env);
    pairs.push(pair);
    const { a, b } = pair;
    const { auth } = await a.newKey('enterprise', { perMinute: 100_000, perDay: 1_000_000 });
    expect(remaining(await a.get('/v1/pets', auth))).toBe(99_999);
    expect(remaining(await b.get('/v1/pets', auth))).toBe(99_998);
    const onB = await subscribe(b.url, PET_EVENTS, b.headers);
    streams.push(onB);

    const old = await lab.master();
    // One client on each instance, one request after another, with the key whose counts are watched.
    const requests = [{ what: 'GET /v1/pets', send: (api: TestServer) => api.get('/v1/pets', auth) }];
    const streamsOfRequests = [requestStream(a, 1, requests), requestStream(b, 1, requests)];
    await new Promise((resolve) => setTimeout(resolve, 300));
    await lab.kill(old);
    await expect.poll(() => lab.master().catch(() => old), { timeout: 20_000, interval: 200 }).not.toBe(old);
    // The streams used the watched key too: stopped, so the check below sees only its own requests.
    for (const stream of streamsOfRequests) await stream.stop();
    // Counting is shared again: one instance's request is seen by the other's next one.
    await expect.poll(async () => {
      const first = remaining(await a.get('/v1/pets', auth));
      return remaining(await b.get('/v1/pets', auth)) === first - 1;
    }, { timeout: 10_000, interval: 200 }).toBe(true);
    const answers = streamsOfRequests.flatMap((stream) => stream.answers);

    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([200]));
    expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(500 + 100);
    // The subscriber followed the failover too: a change made now is heard.
    await expect.poll(async () => {
      await a.post('/v1/pets', { name: 'After the failover', categoryId: 1 });
      return (await onB.next(1_000).catch(() => undefined))?.data?.petChanged?.pet?.name;
    }, { timeout: 10_000, interval: 500 }).toBe('After the failover');
  });
});
