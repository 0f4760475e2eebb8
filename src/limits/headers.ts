/** One window's state after a request: how many are left, and when it resets. */
export interface WindowState {
  readonly limit: number;
  readonly remaining: number;
  readonly msBeforeReset: number;
}

const resetAt = (now: number, ms: number) => String(Math.ceil((now + ms) / 1000));

/**
 * decisions.md: the headers describe the window with the fewest requests remaining; on a tie, the
 * shorter one. `windows` come shortest first.
 */
export function rateLimitHeaders(windows: readonly WindowState[], now = Date.now()): Record<string, string> {
  const tightest = windows.reduce((best, w) => (w.remaining < best.remaining ? w : best));
  return {
    'X-RateLimit-Limit': String(tightest.limit),
    'X-RateLimit-Remaining': String(tightest.remaining),
    'X-RateLimit-Reset': resetAt(now, tightest.msBeforeReset),
  };
}

/** A refusal: nothing remains until `msBeforeRetry` has passed; Retry-After is whole seconds, at least 1. */
export function refusalHeaders(limit: number, msBeforeRetry: number, now = Date.now()): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': resetAt(now, msBeforeRetry),
    'Retry-After': String(Math.max(1, Math.ceil(msBeforeRetry / 1000))),
  };
}
