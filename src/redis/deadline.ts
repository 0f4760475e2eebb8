/** A Redis call that did not answer within the request's deadline; the caller answers without it. */
export class RedisDeadlineError extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'RedisDeadlineError';
  }
}

export type Deadline = <T>(call: Promise<T>) => Promise<T>;

/**
 * Bounds a Redis call on a request's path. ioredis's command timeout does not cover a Cluster in
 * failover: it holds commands for a slot until the new master is known (seconds; 15-20 at production
 * settings). The call itself goes on; its late answer is ignored.
 */
export function deadline(ms: number): Deadline {
  return <T>(call: Promise<T>) => new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new RedisDeadlineError(ms)), ms);
    call.then((value) => { clearTimeout(timer); resolve(value); }, (error: unknown) => { clearTimeout(timer); reject(error); });
  });
}

import { log } from '../log.js';

/**
 * The state of one path that answers from its in-process fallback when Redis fails it: counted each time,
 * logged once per change (failing, then answering again), so a fallback is never silent and never floods.
 */
export interface FallbackReport {
  failed(path: string, error: unknown): void;
  succeeded(path: string): void;
}

/** Counts every fallback (`count`), and logs the first of each spell and the recovery after it, per path. */
export function fallbackReport(count: (path: string, reason: 'deadline' | 'error') => void): FallbackReport {
  const failing = new Set<string>();
  return {
    failed(path, error) {
      const reason = error instanceof RedisDeadlineError ? 'deadline' : 'error';
      count(path, reason);
      if (failing.has(path)) return;
      failing.add(path);
      log.warn({ path, reason, err: error }, 'a request\'s Redis call failed: answering from this instance until Redis answers again');
    },
    succeeded(path) {
      if (failing.size === 0 || !failing.delete(path)) return;
      log.info({ path }, 'Redis answers the request path again');
    },
  };
}
