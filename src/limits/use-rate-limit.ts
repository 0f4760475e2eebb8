import type { RateLimitsConfig } from '../config.js';
import type { Quota } from '../domain/quota.js';
import { appError } from '../errors.js';
import type { ServerContext } from '../pipeline/context.js';
import type { Step } from '../pipeline/pipeline.js';
import type { WindowState } from './headers.js';
import type { Limits, Subject } from './limiters.js';

declare module '../pipeline/context.js' {
  interface ServerContext {
    /** The rate-limit headers every response of this request carries. */
    rateLimitHeaders?: Record<string, string>;
    /** The caller's windows after this request was counted (the quota look-up answers them). */
    counted?: { readonly at: number; readonly windows: readonly WindowState[] };
    /** The key's last write as Redis keeps it (null: none lately; undefined: not asked, or Redis did not answer). */
    lastWrite?: string | null;
    /** Why the request was refused with 429, for the metrics. */
    refusal?: 'RATE_LIMITED' | 'API_KEY_BANNED';
    /**
     * A conditional read's points, not yet taken: its answer decides (a 304 costs none). `affordable`:
     * whether the windows held them when the request was looked at; `take` takes them (a 429 if they are gone).
     */
    deferredCost?: { readonly affordable: boolean; take(): Promise<void> };
  }
}

/** What a key's windows are made of (the caller's key, as authentication gives it). */
interface KeyLimits {
  readonly id: number;
  readonly perMinute: number;
  readonly perDay: number;
}

/**
 * Takes what every request that reaches it costs from its key's plan, or, without a valid key, from the
 * client's address (so 401s are limited too: guessing keys is slow). An operation that needs more
 * points than remain is refused whole. Every response carries the headers.
 */
export function useRateLimit(
  limits: Limits, config: RateLimitsConfig, lastWriteKey?: (subjectId: string) => string,
  /** A request whose points wait for its answer (a conditional read: a 304 costs none); it is looked at for nothing first. */
  defers: (request: Request, serverContext: ServerContext) => boolean = () => false,
): Step {
  // The subject's id is a hash tag: its ban, its windows and its refusals hash to one Cluster slot, so
  // the one script call that takes them is allowed there (Redis refuses a script across slots).
  const keySubject = (key: KeyLimits): Subject => {
    const id = `{key:${key.id}}`;
    return {
      id,
      bannable: true,
      windows: [
        { name: 'minute', limit: key.perMinute, duration: config.windows.minute },
        { name: 'day', limit: key.perDay, duration: config.windows.day },
      ],
      // With read replicas, the same call reads the key's last write (kept in the key's slot).
      read: lastWriteKey?.(id),
    };
  };
  // A key's subject is made once per cached key (the key cache hands out the same object until it
  // reads the key again, its limits perhaps changed), not once per request.
  const subjects = new WeakMap<KeyLimits, Subject>();
  const subjectOf = ({ caller, address }: ServerContext): Subject => {
    if (caller?.kind !== 'key') {
      return {
        id: `{address:${address}}`,
        bannable: false,
        windows: [{ name: 'minute', limit: config.anonymousPerMinute, duration: config.windows.minute }],
      };
    }
    let subject = subjects.get(caller.key);
    if (!subject) subjects.set(caller.key, subject = keySubject(caller.key));
    return subject;
  };

  /** Takes `cost` points (none: only looks) and tells the request what the windows say, or refuses it. */
  async function count(serverContext: ServerContext, subject: Subject, cost: number): Promise<void> {
    const verdict = await limits.check(subject, cost);
    serverContext.rateLimitHeaders = verdict.headers;
    if (verdict.allowed) {
      serverContext.counted = { at: verdict.at, windows: verdict.windows };
      serverContext.lastWrite = verdict.read;
      return;
    }
    serverContext.refusal = verdict.code;
    // Retry-After and the rest travel with every response of the request (onResponse).
    throw appError(verdict.code, verdict.message, { problem: { 'violated-policies': verdict.policies } });
  }

  return {
    async onRequest({ request, serverContext }) {
      // A request without a key is never executed: it costs one point, whatever it asks for.
      const keyed = serverContext.caller?.kind === 'key';
      const cost = keyed ? serverContext.cost : 1;
      const subject = subjectOf(serverContext);
      if (!keyed || cost === 0 || !defers(request, serverContext)) return count(serverContext, subject, cost);
      // Looked at for nothing (a ban still refuses); the points are taken once the answer is known to be more than a 304.
      await count(serverContext, subject, 0);
      const remaining = Math.min(...(serverContext.counted?.windows.map((w) => w.remaining) ?? [0]));
      let taken = false;
      serverContext.deferredCost = {
        affordable: remaining >= cost,
        take: () => {
          if (taken) return Promise.resolve();
          taken = true;
          return count(serverContext, subject, cost);
        },
      };
    },
    onResponse({ serverContext, response }) {
      for (const [name, value] of Object.entries(serverContext.rateLimitHeaders ?? {})) response.headers.set(name, value);
    },
  };
}

/** The calling key's plan and windows after this request was counted: what the quota look-up answers. */
export function quotaOf({ counted, caller }: ServerContext): Quota | undefined {
  if (!counted || caller?.kind !== 'key') return undefined;
  return {
    plan: caller.key.plan,
    windows: counted.windows.map((w) => ({
      name: w.name, limit: w.limit, remaining: w.remaining, reset: Math.ceil((counted.at + w.msBeforeReset) / 1000),
    })),
  };
}
