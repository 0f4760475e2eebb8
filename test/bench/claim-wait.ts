/**
 * What `WAIT 1` costs an idempotency claim: the claim (`SET … NX EX`) alone, and followed by `WAIT 1 <ms>`
 * in the same round trip (Redis answers once a replica has the claim), on the scale lab's Redis master
 * with one replica (the Sentinel lab's data nodes). `npx tsx test/bench/claim-wait.ts`; CLAIMS (2000).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { redisSentinel } from '../scale/lab/redis-sentinel.js';

const CLAIMS = Number(process.env.CLAIMS ?? 2_000);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

const lab = await redisSentinel();
try {
  const redis = new Redis({ port: await lab.master(), host: '127.0.0.1' });
  const claim = (key: string) => redis.set(key, '{"fingerprint":"x"}', 'EX', 60, 'NX');
  const claimAndWait = async (key: string) => {
    const [claimed, waited] = (await redis.pipeline().set(key, '{"fingerprint":"x"}', 'EX', 60, 'NX').wait(1, 100).exec())!;
    const set = claimed?.[1];
    const acked = waited?.[1];
    if (set !== 'OK' || acked !== 1) throw new Error(`claim ${String(set)}, acked by ${String(acked)}`);
  };
  const measure = async (what: string, run: (key: string) => Promise<unknown>) => {
    for (let i = 0; i < 200; i++) await run(`warm:${randomBytes(8).toString('hex')}`);
    const times: number[] = [];
    for (let i = 0; i < CLAIMS; i++) {
      const started = process.hrtime.bigint();
      await run(`claim:${randomBytes(8).toString('hex')}`);
      times.push(Number(process.hrtime.bigint() - started) / 1e3);
    }
    times.sort((a, b) => a - b);
    return { what, claims: CLAIMS, 'p50 µs': Math.round(percentile(times, 50)), 'p90 µs': Math.round(percentile(times, 90)), 'p99 µs': Math.round(percentile(times, 99)) };
  };
  const rows = [];
  for (let round = 0; round < 2; round++) {
    rows.push(await measure('SET NX', claim), await measure('SET NX + WAIT 1', claimAndWait));
  }
  console.table(rows);
  redis.disconnect();
} finally {
  await lab.stop();
}
