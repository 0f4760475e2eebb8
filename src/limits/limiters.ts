import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, RLWrapperTimeouts, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisClient } from '../redis/clients.js';
import { deadline, RedisDeadlineError, type FallbackReport } from '../redis/deadline.js';
import type { Clock } from '../clock.js';
import type { RateLimitsConfig } from '../config.js';
import { allowed, banned, limited, type Placed, type Verdict } from './verdicts.js';
import { policyField } from './headers.js';
import { policyOf, windowAt, type Subject, type Window } from './windows.js';
import { takePoints } from './take-points.js';

export type { Subject, Window } from './windows.js';
export type { Verdict } from './verdicts.js';

type Outcome = { ok: boolean; res: RateLimiterRes };

/** A refusal from rate-limiter-flexible is a RateLimiterRes; anything else is a fault, and stays one. */
const settle = (promise: Promise<RateLimiterRes>): Promise<Outcome> =>
  promise.then((res) => ({ ok: true, res }), (error: unknown) => {
    if (error instanceof RateLimiterRes) return { ok: false, res: error };
    throw error;
  });

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
export function createLimits(
  config: RateLimitsConfig, redis: RedisClient | undefined, prefix: string, clock: Clock, guard?: LimitsGuard,
  onBan: (subject: string, endsAt: number) => void = () => undefined,
) {
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

  const take = redis && takePoints(redis);

  /**
   * What a subject's every request reuses: its ban's key, the start of each window's key (the window's
   * index is appended per request) and its RateLimit-Policy field. Made once per subject object, which
   * a key keeps while it is cached.
   */
  interface Plan {
    readonly banKey: string;
    readonly windowKeys: readonly string[];
    readonly policy: string;
  }
  const plans = new WeakMap<Subject, Plan>();
  const planOf = (subject: Subject): Plan => {
    let plan = plans.get(subject);
    if (!plan) {
      plans.set(subject, plan = {
        banKey: bans.key(subject.id),
        windowKeys: subject.windows.map((w) => windowLimiter(w).key(`${subject.id}:`)),
        policy: policyField(subject.windows.map(policyOf)),
      });
    }
    return plan;
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
      const plan = planOf(subject);
      const call = take(
        { key: plan.banKey, bannable: subject.bannable },
        placed.map(({ w, at }, i) => ({ key: plan.windowKeys[i]! + at.index, limit: w.limit, seconds: w.duration })),
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
      if (taken?.banned) return banned(subject, taken.ends - now, now, config.banThreshold);
      if (taken) {
        const refused = placed.map((p, i) => ({ ...p, consumed: taken.consumed[i]! })).filter(({ w, consumed }) => consumed > w.limit);
        if (refused.length === 0) return allowed(placed, taken.consumed.map((c, i) => Math.max(0, placed[i]!.w.limit - c)), now, taken.read, plan.policy);
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
      return banned(subject, banEnds - now, now, config.banThreshold);
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
      onBan(subject.id, now + config.banSeconds * 1000);
      return banned(subject, config.banSeconds * 1000, now, config.banThreshold);
    }
    // The request may go again when every refusing window has reset.
    const last = refused.reduce((a, b) => (b.at.msBeforeReset > a.at.msBeforeReset ? b : a));
    return limited(subject, last.w, last.consumed, cost, last.at.msBeforeReset, now, refused.map(({ w }) => w.name));
  }

  return { check };
}

export type Limits = ReturnType<typeof createLimits>;
