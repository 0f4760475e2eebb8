import type { Clock } from '../clock.js';
import { ON_PRIMARY, type ReadAfter } from '../db/positions.js';
import type { RedisClient } from '../redis/clients.js';
import type { Deadline, FallbackReport } from '../redis/deadline.js';

/** What Redis keeps for a write whose position the primary did not report. */
const PRIMARY = 'primary';
/** Keys whose last writes this instance remembers at most: the oldest is forgotten first. */
const REMEMBERED = 10_000;

/** A key's last write: the position its reads wait for, and (with the response cache) the outbox id it is read through. */
export interface LastWrite {
  readonly after: ReadAfter;
  /** Every instance that has read the outbox up to this id has heard of the write (cache/). */
  readonly through?: number;
}

export interface LastWrites {
  /** The Redis key of a subject's last write (in the subject's hash slot: the limits call reads it). */
  key(subjectId: string): string;
  /**
   * A key's last write, as its reads must see it: `stored` is what the limits call read from Redis (null:
   * nothing; undefined: Redis did not answer). Without an answer from Redis, this instance's own memory decides.
   */
  lastWrite(keyId: number, stored: string | null | undefined): LastWrite | undefined;
  /** What a key's reads must see: the position of `lastWrite`. */
  after(keyId: number, stored: string | null | undefined): ReadAfter | undefined;
  /**
   * Keeps a key's write for the window: in Redis for every instance, and here. Resolves when kept: true
   * when every instance can know it (kept in Redis, or there is no Redis), false when only this one does.
   */
  remember(keyId: number, written: ReadAfter, through?: number): Promise<boolean>;
}

/** As Redis keeps it: the position (or `primary`), then the outbox id when there is one. */
const stored = ({ after, through }: LastWrite) => `${after === ON_PRIMARY ? PRIMARY : after}${through === undefined ? '' : ` ${through}`}`;
function parsed(value: string): LastWrite {
  const space = value.indexOf(' ');
  const position = space < 0 ? value : value.slice(0, space);
  const after = position === PRIMARY ? ON_PRIMARY : position;
  return space < 0 ? { after } : { after, through: Number(value.slice(space + 1)) };
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
  const remembered = new Map<number, { readonly written: LastWrite; readonly until: number }>();
  const key = (subjectId: string) => `${prefix}:${subjectId}:last-write`;
  const local = (keyId: number): LastWrite | undefined => {
    const found = remembered.get(keyId);
    if (!found) return undefined;
    if (found.until > clock.now()) return found.written;
    remembered.delete(keyId);
    return undefined;
  };

  const lastWrite = (keyId: number, value: string | null | undefined) => (typeof value === 'string' ? parsed(value) : local(keyId));
  return {
    key,
    lastWrite,
    after: (keyId, value) => lastWrite(keyId, value)?.after,
    async remember(keyId, after, through) {
      const written: LastWrite = through === undefined ? { after } : { after, through };
      remembered.delete(keyId);
      remembered.set(keyId, { written, until: clock.now() + seconds * 1000 });
      if (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value!);
      if (!redis) return true;
      return bound(redis.set(key(`{key:${keyId}}`), stored(written), 'EX', seconds)).then(
        () => { report.succeeded('last_write'); return true; },
        (error: unknown) => { report.failed('last_write', error); return false; },
      );
    },
  };
}
