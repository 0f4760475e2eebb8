import { STATUS_CODES } from 'node:http';
import type { AppError } from '../errors.js';

/** RFC 9457's media type: asked for in Accept, answered in Content-Type. */
export const PROBLEM_JSON = 'application/problem+json';

/**
 * The IETF rate-limit draft's problem type for a request over a quota: its `violated-policies` name the
 * refusing windows as the RateLimit-Policy field names them.
 */
const QUOTA_EXCEEDED = 'https://iana.org/assignments/http-problem-types#quota-exceeded';

/** Asked for by media type (any q but 0); a wildcard alone keeps the Error body clients were promised. */
export function wantsProblemDetails(request: Request): boolean {
  const accept = request.headers.get('accept');
  if (!accept?.includes(PROBLEM_JSON)) return false;
  return accept.split(',').some((range) => {
    const [type, ...parameters] = range.split(';').map((part) => part.trim());
    return type?.toLowerCase() === PROBLEM_JSON && !parameters.some((p) => /^q=0(\.0{0,3})?$/i.test(p));
  });
}

/**
 * RFC 9457 problem details: the 429s are quota-exceeded problems; every other error is `about:blank`,
 * whose title is the status's phrase (our code, kept as the `code` member, says which problem it is).
 * `instance` is the request id, as the X-Request-Id header and the log line carry it.
 */
export function problemDetails(error: AppError, requestId?: string) {
  const { code, status } = error.extensions;
  const quota = code === 'RATE_LIMITED' || code === 'API_KEY_BANNED';
  return {
    type: quota ? QUOTA_EXCEEDED : 'about:blank',
    title: quota ? 'Quota exceeded' : STATUS_CODES[status] ?? 'Error',
    status,
    detail: error.message,
    ...(requestId ? { instance: requestId } : {}),
    code,
    ...error.problem,
  };
}
