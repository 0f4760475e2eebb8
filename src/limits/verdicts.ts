/** What a request is told, made from the windows as they stand: allowed with its headers, limited, or banned. */
import { rateLimitHeaders, refusalHeaders, type WindowState } from './headers.js';
import { policyOf, type Subject, type Window, type windowAt } from './windows.js';

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

export function banned(subject: Subject, ms: number, now: number, banThreshold: number): Verdict {
  return {
    allowed: false,
    code: 'API_KEY_BANNED',
    message: `This API key is banned for ${Math.ceil(ms / 1000)} s after ${banThreshold} refused requests; back off exponentially after a 429`,
    headers: refusalHeaders(policyOf(subject.windows[0]!), subject.windows.map(policyOf), ms, now),
    policies: [subject.windows[0]!.name],
  };
}

export function limited(subject: Subject, w: Window, consumed: number, cost: number, ms: number, now: number, policies: readonly string[]): Verdict {
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

/** A window placed at a time: which of its windows the request falls in. */
export type Placed = { readonly w: Window; readonly at: ReturnType<typeof windowAt> };
/** `policy`: the windows' RateLimit-Policy field, when the caller has it made already. */
export const allowed = (placed: readonly Placed[], remaining: readonly number[], now: number, read?: string | null, policy?: string): Verdict => {
  const windows = placed.map(({ w, at }, i): WindowState => ({ ...policyOf(w), remaining: remaining[i]!, msBeforeReset: at.msBeforeReset }));
  return { allowed: true, headers: rateLimitHeaders(windows, now, policy), windows, at: now, read };
};
