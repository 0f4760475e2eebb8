/** One window's state after a request: how many are left, and when it resets. */
export interface WindowState {
  /** The policy's name in the IETF fields: `minute`, `day`. */
  readonly name: string;
  readonly limit: number;
  /** The window's length, in seconds. */
  readonly seconds: number;
  readonly remaining: number;
  readonly msBeforeReset: number;
}

const resetAt = (now: number, ms: number) => String(Math.ceil((now + ms) / 1000));
const secondsLeft = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

/**
 * RateLimit-Policy (IETF httpapi ratelimit-headers draft, a Structured Fields list): each window as a
 * named policy with its quota `q` and its length `w` in seconds. The same for every request of a plan.
 */
export function policyField(windows: readonly Pick<WindowState, 'name' | 'limit' | 'seconds'>[]): string {
  return windows.map((w) => `"${w.name}";q=${w.limit};w=${w.seconds}`).join(', ');
}

/** RateLimit: each policy's remaining quota `r` and the seconds `t` until it resets. */
function stateField(windows: readonly WindowState[]): string {
  return windows.map((w) => `"${w.name}";r=${w.remaining};t=${secondsLeft(w.msBeforeReset)}`).join(', ');
}

/**
 * decisions.md: the X-RateLimit-* headers describe the window with the fewest requests remaining; on a
 * tie, the shorter one. `windows` come shortest first. The IETF fields describe every window.
 */
export function rateLimitHeaders(windows: readonly WindowState[], now = Date.now(), policy = policyField(windows)): Record<string, string> {
  const tightest = windows.reduce((best, w) => (w.remaining < best.remaining ? w : best));
  return {
    'X-RateLimit-Limit': String(tightest.limit),
    'X-RateLimit-Remaining': String(tightest.remaining),
    'X-RateLimit-Reset': resetAt(now, tightest.msBeforeReset),
    'RateLimit-Policy': policy,
    RateLimit: stateField(windows),
  };
}

/**
 * A refusal: nothing remains in the refusing window (or, during a ban, the first) until `msBeforeRetry`
 * has passed; Retry-After is whole seconds, at least 1.
 */
export function refusalHeaders(
  refusing: Pick<WindowState, 'name' | 'limit' | 'seconds'>, windows: readonly Pick<WindowState, 'name' | 'limit' | 'seconds'>[],
  msBeforeRetry: number, now = Date.now(),
): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(refusing.limit),
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': resetAt(now, msBeforeRetry),
    'Retry-After': String(Math.max(1, Math.ceil(msBeforeRetry / 1000))),
    'RateLimit-Policy': policyField(windows),
    RateLimit: `"${refusing.name}";r=0;t=${Math.max(1, Math.ceil(msBeforeRetry / 1000))}`,
  };
}
