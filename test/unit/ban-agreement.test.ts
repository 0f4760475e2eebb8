import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLimits, type Subject, type Verdict } from '../../src/limits/limiters.js';
import { testClock } from '../support/clock.js';

const redisUrl = process.env.TEST_REDIS_URL;

/** What a client is told: allowed or not, by which code, and every header. */
const told = (verdict: Verdict) => ({ allowed: verdict.allowed, code: verdict.allowed ? undefined : verdict.code, headers: verdict.headers });

/**
 * The ban is taken two ways: by the Lua script in Redis (one call: the ban, then the windows), and by
 * rate-limiter-flexible's own calls when Redis is away (the in-process fallback). The same requests at
 * the same times must be told the same, whichever way they went.
 */
describe.runIf(redisUrl)('a ban through the Redis script and through the in-process fallback', () => {
  const redis = new Redis(redisUrl!);
  afterAll(() => redis.disconnect());

  it('tells the same requests the same, window by window, through the ban and after it', async () => {
    const rateLimits = { ...loadConfig({}).rateLimits, banThreshold: 3, banWindowSeconds: 60, banSeconds: 120 };
    const start = Math.ceil(Date.now() / 60_000) * 60_000 + 60_000 * 7;
    const subject: Subject = {
      id: `{key:agree-${process.pid}-${start}}`, bannable: true,
      windows: [{ name: 'minute', limit: 2, duration: 60 }, { name: 'day', limit: 1_000, duration: 86_400 }],
    };
    // Within one minute: 2 allowed, 3 refused, the fourth refusal past the threshold starts the ban; past it, allowed again.
    const steps = [0, 1_000, 2_000, 3_000, 4_000, 5_000, 30_000, 61_000, 125_000, 126_000, 185_000];
    const run = async (client: Redis | undefined, prefix: string) => {
      const clock = testClock(start);
      const limits = createLimits(rateLimits, client, prefix, clock);
      const seen = [];
      let at = 0;
      for (const step of steps) {
        clock.advance(step - at);
        at = step;
        seen.push(told(await limits.check(subject)));
      }
      return seen;
    };
    const throughRedis = await run(redis, `agree-${process.pid}-redis`);
    const inProcess = await run(undefined, `agree-${process.pid}-memory`);
    expect(throughRedis.map((v) => v.code ?? 'allowed')).toEqual([
      'allowed', 'allowed', 'RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED', 'API_KEY_BANNED', 'API_KEY_BANNED', 'API_KEY_BANNED', 'allowed', 'allowed', 'allowed',
    ]);
    expect(inProcess).toEqual(throughRedis);
  });
});
