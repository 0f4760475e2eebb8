import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, RLWrapperTimeouts, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisClient } from '../redis/clients.js';
import { deadline, RedisDeadlineError, type FallbackReport } from '../redis/deadline.js';
import type { Clock } from '../clock.js';
import type { LimitsConfig } from '../config.js';
import { rateLimitHeaders, refusalHeaders, type WindowState } from './headers.js';
import { takePoints } from './take-points.js';

export interface Window {
  readonly name: 'minute' | 'day';
  readonly limit: number;
  /** Seconds. */
  readonly duration: number;
}

/** Whom a request is counted against: a key (its plan's windows, bannable) or a client address. */
export interface Subject {
  /** A Redis hash tag (`{key:7}`): every key of one subject is in one slot. */
  readonly id: string;
  /** Shortest first. */
  readonly windows: readonly Window[];
  readonly bannable: boolean;
  /** A Redis key of the subject's slot to read in the same call (its last write, for read replicas). */
  readonly read?: string;
}

export type Verdict =
  | {
    readonly allowed: true; readonly headers: Record<string, string>; readonly windows: readonly WindowState[]; readonly at: number;
    /** The value of the subject's `read` key: null when it has none, undefined when Redis did not answer. */
    readonly read?: string | null;
  }
  | {
    readonly allowed: false; readonly code: 'RATE_LIMITED' | 'API_KEY_BANNED'; readonly message: string; readonly headers: Record<string, string>;
    /** The refusing windows, by the names the RateLimit fields give them (a ban refuses as the first window). */
    readonly policies: readonly string[];
  };

type Outcome = { ok: boolean; res: RateLimiterRes };

/** A window as the IETF fields name it. */
const policyOf = (w: Window) => ({ name: w.name, limit: w.limit, seconds: w.duration });

/** A refusal from rate-limiter-flexible is a RateLimiterRes; anything else is a fault, and stays one. */
const settle = (promise: Promise<RateLimiterRes>): Promise<Outcome> =>
  promise.then((res) => ({ ok: true, res }), (error: unknown) => {
    if (error instanceof RateLimiterRes) return { ok: false, res: error };
    throw error;
  });

/**
 * Fixed windows aligned to the clock: the minute window resets at every whole minute, the day window at
 * 00:00 UTC. Every instance reads the same boundaries from its clock, and a window's counter is keyed by
 * its start, so the clock alone decides which window a request falls in (tests move it by hand).
 */
const windowAt = (now: number, seconds: number) => {
  const length = seconds * 1000;
  const index = Math.floor(now / length);
  return { index, msBeforeReset: (index + 1) * length - now };
};

/** What bounds the limits' Redis calls, and hears when one fails. */
export interface LimitsGuard {
  readonly deadlineMs: number;
  readonly report: FallbackReport;
}

/**
 * One counter of rate-limiter-flexible's: `shared` in Redis (each call bounded by the deadline, past which
 * or on an error its in-memory insurance answers), `local` that insurance itself. On the embedded default
 * both are the one in-memory limiter.
 */
interface Counter {
  readonly shared: RateLimiterAbstract;
  readonly local: RateLimiterAbstract;
  /** The Redis key of `key`, as rate-limiter-flexible names it: the script reads and writes the same keys. */
  key(key: string): string;
}

/**
 * A key's minute and day windows, and a client address's minute, in rate-limiter-flexible: in Redis
 * (shared by every instance, with an in-memory insurance limiter for outages) or in memory on the
 * embedded default. A request costs points: one, or one per root field of a GraphQL operation.
 */
export function createLimits(config: LimitsConfig, redis: RedisClient | undefined, prefix: string, clock: Clock, guard?: LimitsGuard) {
  const limiters = new Map<string, Counter>();
  const limiter = (name: string, points: number, duration: number): Counter => {
    const keyPrefix = `${prefix}:${name}:${points}`;
    let found = limiters.get(keyPrefix);
    if (!found) {
      const options = { keyPrefix, points, duration };
      const local = new RateLimiterMemory(options);
      const inRedis = redis && new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: local, rejectIfRedisNotReady: true });
      found = {
        shared: inRedis && guard ? new RLWrapperTimeouts({ limiter: inRedis, timeoutMs: guard.deadlineMs, insuranceLimiter: local }) : inRedis ?? local,
        local,
        key: (key) => (inRedis ?? local).getKey(key),
      };
      limiters.set(keyPrefix, found);
    }
    return found;
  };
  const windowLimiter = (w: Window) => limiter(w.name, w.limit, w.duration);
  const bound = guard ? deadline(guard.deadlineMs) : <T>(call: Promise<T>) => call;
  /** Refusals per ban window: past the threshold, the key is banned. */
  const refusals = limiter('refusals', config.banThreshold, config.banWindowSeconds);
  /** A ban is stored as the time it ends (ms), so it ends by the clock, like the windows. */
  const bans = limiter('bans', 1, config.banSeconds);

  function banned(subject: Subject, ms: number, now: number): Verdict {
    return {
      allowed: false,
      code: 'API_KEY_BANNED',
      message: `This API key is banned for ${Math.ceil(ms / 1000)} s after ${config.banThreshold} refused requests; back off exponentially after a 429`,
      headers: refusalHeaders(policyOf(subject.windows[0]!), subject.windows.map(policyOf), ms, now),
      policies: [subject.windows[0]!.name],
    };
  }

  function limited(subject: Subject, w: Window, consumed: number, cost: number, ms: number, now: number, policies: readonly string[]): Verdict {
    const left = Math.max(0, w.limit - (consumed - cost));
    return {
      allowed: false,
      code: 'RATE_LIMITED',
      message: cost === 1
        ? `Rate limit exceeded: ${w.limit} requests per ${w.name}; retry after the Retry-After seconds`
        : `Rate limit exceeded: this operation costs ${cost} points (one per root field) and ${left} of ${w.limit} per ${w.name} remain; retry after the Retry-After seconds`,
      headers: refusalHeaders(policyOf(w), subject.windows.map(policyOf), ms, now),
      policies,
    };
  }

  const take = redis && takePoints(redis);

  type Placed = { readonly w: Window; readonly at: ReturnType<typeof windowAt> };
  const allowed = (placed: readonly Placed[], remaining: readonly number[], now: number, read?: string | null): Verdict => {
    const windows = placed.map(({ w, at }, i): WindowState => ({ ...policyOf(w), remaining: remaining[i]!, msBeforeReset: at.msBeforeReset }));
    return { allowed: true, headers: rateLimitHeaders(windows, now), windows, at: now, read };
  };

  /**
   * Takes `cost` points from every window at once. In Redis, the ban check and the windows are one script
   * call, bounded by the deadline. When Redis is away, or the call passes its deadline, this instance's own
   * counters answer at once (asking Redis again would wait a second deadline); when it fails otherwise,
   * rate-limiter-flexible's own calls run, each bounded, with their insurance. A refused or banned request
   * is given back to every window, so it counts against none.
   */
  async function check(subject: Subject, cost = 1): Promise<Verdict> {
    const now = clock.now();
    const placed: Placed[] = subject.windows.map((w) => ({ w, at: windowAt(now, w.duration) }));
    const keyOf = (index: number) => `${subject.id}:${index}`;
    let side: 'shared' | 'local' = 'local';

    if (take && redis.status === 'ready') {
      const call = take(
        { key: bans.key(subject.id), bannable: subject.bannable },
        placed.map(({ w, at }) => ({ key: windowLimiter(w).key(keyOf(at.index)), limit: w.limit, seconds: w.duration })),
        cost, now, subject.read,
      );
      const taken = await bound(call).then((answer) => {
        guard?.report.succeeded('limits');
        return answer;
      }, (error: unknown) => {
        guard?.report.failed('limits', error);
        if (!(error instanceof RedisDeadlineError)) side = 'shared';
        return undefined;
      });
      if (taken?.banned) return banned(subject, taken.ends - now, now);
      if (taken) {
        const refused = placed.map((p, i) => ({ ...p, consumed: taken.consumed[i]! })).filter(({ w, consumed }) => consumed > w.limit);
        if (refused.length === 0) return allowed(placed, taken.consumed.map((c, i) => Math.max(0, placed[i]!.w.limit - c)), now, taken.read);
        return refuse(subject, refused, cost, now, 'shared');
      }
    }

    const [banRes, ...outcomes] = await Promise.all([
      subject.bannable ? bans[side].get(subject.id) : null,
      ...placed.map(({ w, at }) => settle(windowLimiter(w)[side].consume(keyOf(at.index), cost))),
    ]) as [RateLimiterRes | null, ...Outcome[]];
    const giveBack = () => Promise.all(placed.map(({ w, at }) => windowLimiter(w)[side].reward(keyOf(at.index), cost)));

    const banEnds = banRes?.consumedPoints ?? 0;
    if (banEnds > now) {
      await giveBack();
      return banned(subject, banEnds - now, now);
    }
    const refused = placed.map((p, i) => ({ ...p, o: outcomes[i]! })).filter(({ o }) => !o.ok);
    if (refused.length === 0) return allowed(placed, outcomes.map((o) => o.res.remainingPoints), now);
    const [, verdict] = await Promise.all([
      giveBack(), refuse(subject, refused.map(({ w, at, o }) => ({ w, at, consumed: o.res.consumedPoints })), cost, now, side),
    ]);
    return verdict;
  }

  /** A refused request (given back to its windows): counted toward a ban, which it may start. */
  async function refuse(
    subject: Subject, refused: readonly (Placed & { consumed: number })[], cost: number, now: number, side: 'shared' | 'local',
  ): Promise<Verdict> {
    const banWindow = windowAt(now, config.banWindowSeconds).index;
    const refusal = subject.bannable ? await settle(refusals[side].consume(`${subject.id}:${banWindow}`)) : null;
    if (refusal && !refusal.ok) {
      await bans[side].set(subject.id, now + config.banSeconds * 1000, config.banSeconds);
      return banned(subject, config.banSeconds * 1000, now);
    }
    // The request may go again when every refusing window has reset.
    const last = refused.reduce((a, b) => (b.at.msBeforeReset > a.at.msBeforeReset ? b : a));
    return limited(subject, last.w, last.consumed, cost, last.at.msBeforeReset, now, refused.map(({ w }) => w.name));
  }

  return { check };
}

export type Limits = ReturnType<typeof createLimits>;
