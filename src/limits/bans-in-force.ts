import type { Clock } from '../clock.js';
import type { RedisClient } from '../redis/clients.js';

/**
 * The bans in force across every instance, for the metrics: a sorted set in Redis (each banned subject,
 * scored by when its ban ends), written when a ban starts (rarely) and counted at a scrape. Each
 * instance keeps its own bans too, which answer while Redis does not, and on the embedded default.
 */
export function bansInForce(clock: Clock, redis?: { client: RedisClient; prefix: string }) {
  const local = new Map<string, number>();
  const key = redis && `${redis.prefix}:bans-in-force`;
  const localCount = (now: number) => {
    for (const [subject, ends] of local) if (ends <= now) local.delete(subject);
    return local.size;
  };
  return {
    started(subject: string, endsAt: number) {
      const now = clock.now();
      localCount(now);
      local.set(subject, endsAt);
      if (!redis || !key) return;
      // Not waited for: the ban itself is already stored; this is only its count.
      redis.client.multi()
        .zremrangebyscore(key, '-inf', now)
        .zadd(key, endsAt, subject)
        .pexpireat(key, Math.max(endsAt, now + 1))
        .exec()
        .catch(() => undefined);
    },
    async count(): Promise<number> {
      const now = clock.now();
      if (!redis || !key) return localCount(now);
      return redis.client.zcount(key, now + 1, '+inf').catch(() => localCount(now));
    },
  };
}
