import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { LimitsConfig } from '../config.js';
import { rateLimitHeaders, refusalHeaders, type WindowState } from './headers.js';

export interface Window {
  readonly name: 'minute' | 'day';
  readonly limit: number;
  /** Seconds. */
  readonly duration: number;
}

/** Whom a request is counted against: a key (its plan's windows, bannable) or a client address. */
export interface Subject {
  readonly id: string;
  /** Shortest first. */
  readonly windows: readonly Window[];
  readonly bannable: boolean;
}

export type Verdict =
  | { readonly allowed: true; readonly headers: Record<string, string> }
  | { readonly allowed: false; readonly code: 'RATE_LIMITED' | 'API_KEY_BANNED'; readonly message: string; readonly headers: Record<string, string> };

type Outcome = { ok: boolean; res: RateLimiterRes };

/** A refusal from rate-limiter-flexible is a RateLimiterRes; anything else is a fault, and stays one. */
const settle = (promise: Promise<RateLimiterRes>): Promise<Outcome> =>
  promise.then((res) => ({ ok: true, res }), (error: unknown) => {
    if (error instanceof RateLimiterRes) return { ok: false, res: error };
    throw error;
  });

/**
 * Fixed minute and day windows per key with rate-limiter-flexible: in Redis (shared by every instance,
 * with an in-memory insurance limiter for outages) or in memory on the embedded default.
 */
export function createLimits(config: LimitsConfig, redis: Redis | undefined, prefix: string) {
  const limiters = new Map<string, RateLimiterAbstract>();
  const limiter = (name: string, points: number, duration: number, blockDuration = 0): RateLimiterAbstract => {
    const keyPrefix = `${prefix}:${name}:${points}`;
    let found = limiters.get(keyPrefix);
    if (!found) {
      const options = { keyPrefix, points, duration, blockDuration };
      found = redis
        ? new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: new RateLimiterMemory(options) })
        : new RateLimiterMemory(options);
      limiters.set(keyPrefix, found);
    }
    return found;
  };
  const ban = limiter('refusals', config.banThreshold, config.banWindowSeconds, config.banSeconds);
  const windowLimiter = (w: Window) => limiter(w.name, w.limit, w.duration);

  function banned(subject: Subject, banRes: RateLimiterRes | null, now: number): Verdict {
    const ms = banRes?.msBeforeNext ?? config.banSeconds * 1000;
    return {
      allowed: false,
      code: 'API_KEY_BANNED',
      message: `This API key is banned for ${Math.ceil(ms / 1000)} s after ${config.banThreshold} refused requests; back off exponentially after a 429`,
      headers: refusalHeaders(subject.windows[0]!.limit, ms, now),
    };
  }

  /**
   * Counts the request in every window at once (one Redis round trip, pipelined with the ban check).
   * A refused or banned request is given back to every window, so it counts against none.
   */
  async function check(subject: Subject): Promise<Verdict> {
    const now = Date.now();
    const [banRes, ...outcomes] = await Promise.all([
      subject.bannable ? ban.get(subject.id) : null,
      ...subject.windows.map((w) => settle(windowLimiter(w).consume(subject.id))),
    ]) as [RateLimiterRes | null, ...Outcome[]];
    const giveBack = () => Promise.all(subject.windows.map((w) => windowLimiter(w).reward(subject.id)));

    if (banRes && banRes.consumedPoints > config.banThreshold && banRes.msBeforeNext > 0) {
      await giveBack();
      return banned(subject, banRes, now);
    }
    const refused = subject.windows.map((w, i) => ({ w, o: outcomes[i]! })).filter(({ o }) => !o.ok);
    if (refused.length === 0) {
      const states: WindowState[] = subject.windows.map((w, i) => ({
        limit: w.limit, remaining: outcomes[i]!.res.remainingPoints, msBeforeReset: outcomes[i]!.res.msBeforeNext,
      }));
      return { allowed: true, headers: rateLimitHeaders(states, now) };
    }

    const [, banStarted] = await Promise.all([
      giveBack(),
      subject.bannable ? settle(ban.consume(subject.id)).then((o) => (o.ok ? null : o.res)) : null,
    ]);
    if (banStarted) return banned(subject, banStarted, now);
    // The request may go again when every refusing window has reset.
    const last = refused.reduce((a, b) => (b.o.res.msBeforeNext > a.o.res.msBeforeNext ? b : a));
    return {
      allowed: false,
      code: 'RATE_LIMITED',
      message: `Rate limit exceeded: ${last.w.limit} requests per ${last.w.name}; retry after the Retry-After seconds`,
      headers: refusalHeaders(last.w.limit, last.o.res.msBeforeNext, now),
    };
  }

  return { check };
}

export type Limits = ReturnType<typeof createLimits>;
