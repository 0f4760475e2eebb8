import type { Clock } from '../clock.js';
import { ON_PRIMARY, type ReadAfter } from '../db/positions.js';
import type { RedisClient } from '../redis/clients.js';
import type { Deadline, FallbackReport } from '../redis/deadline.js';

/** What Redis keeps for a write whose position the primary did not report. */
const PRIMARY = 'primary';
/** Keys whose last writes this instance remembers at most: the oldest is forgotten first. */
const REMEMBERED = 10_000;

export interface LastWrites {
  /** The Redis key of a subject's last write (in the subject's hash slot: the limits call reads it). */
  key(subjectId: string): string;
  /**
   * What a key's reads must see: `stored` is what the limits call read from Redis (null: nothing;
   * undefined: Redis did not answer). Without an answer from Redis, this instance's own memory decides.
   */
  after(keyId: number, stored: string | null | undefined): ReadAfter | undefined;
  /** Keeps a key's write for the window: in Redis for every instance, and here. Resolves when kept. */
  remember(keyId: number, written: ReadAfter): Promise<void>;
}

/**
 * Each key's last write for `seconds`, so that its reads on any instance see it: in Redis beside the
 * key's limit counters, and in this instance's memory, which answers alone when Redis does not (each
 * instance then sees its own writes only: a key's write on another instance may be missed meanwhile).
 */
export function lastWrites(options: {
  readonly redis: RedisClient | undefined;
  readonly prefix: string;
  readonly seconds: number;
  readonly clock: Clock;
  readonly bound: Deadline;
  readonly report: FallbackReport;
}): LastWrites {
  const { redis, prefix, seconds, clock, bound, report } = options;
  const remembered = new Map<number, { readonly written: ReadAfter; readonly until: number }>();
  const key = (subjectId: string) => `${prefix}:${subjectId}:last-write`;
  const local = (keyId: number): ReadAfter | undefined => {
    const found = remembered.get(keyId);
    if (!found) return undefined;
    if (found.until > clock.now()) return found.written;
    remembered.delete(keyId);
    return undefined;
  };

  return {
    key,
    after(keyId, stored) {
      if (typeof stored === 'string') return stored === PRIMARY ? ON_PRIMARY : stored;
      return local(keyId);
    },
    async remember(keyId, written) {
      remembered.delete(keyId);
      remembered.set(keyId, { written, until: clock.now() + seconds * 1000 });
      if (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value!);
      if (!redis) return;
      const value = written === ON_PRIMARY ? PRIMARY : written;
      await bound(redis.set(key(`{key:${keyId}}`), value, 'EX', seconds)).then(
        () => report.succeeded('last_write'),
        (error: unknown) => report.failed('last_write', error),
      );
    },
  };
}
