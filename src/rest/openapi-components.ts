import type { OpenAPIV3 } from 'openapi-types';
import { BODY_LIMIT_BYTES } from '../pipeline/body.js';
import { PROBLEM_JSON } from '../pipeline/problem-details.js';

export const ref = (kind: 'schemas' | 'responses' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Each error status the API answers: its component's name and what it means. */
export const ERRORS: Record<string, [name: string, description: string]> = {
  400: ['BadRequest', 'The request is malformed: bad parameters, or a body with missing, invalid or unknown fields.'],
  401: ['Unauthenticated', 'The API key is missing, unknown, mistyped, expired or revoked.'],
  403: ['Forbidden', 'The key is restricted to scopes, and the operation needs one it lacks (`FORBIDDEN`; the message names it). Ask for a key with that scope.'],
  404: ['NotFound', 'The requested resource could not be found.'],
  409: ['Conflict', 'The store\'s rules forbid the change (`CONFLICT`): the animal is not available, the order cannot move to that status, the animal has orders, the key has its most webhook endpoints, or the endpoint has its most test events and redeliveries waiting. Or (`IDEMPOTENCY_IN_PROGRESS`, with `Retry-After`) the first request with this `Idempotency-Key` is still running. Or (`IDEMPOTENCY_KEY_APPLIED`) the first request with this `Idempotency-Key` was applied but never answered (the database went away as it committed): it was not applied again.'],
  410: ['EventsExpired', 'The events after `after` are no longer kept (`EVENTS_EXPIRED`; kept for `EVENT_RETENTION_HOURS`): read the records again, then follow the feed from its newest event.'],
  408: ['RequestTimeout', 'The request (`REQUEST_TIMEOUT`) was not received within the server\'s time limits; the connection is closed.'],
  422: ['IdempotencyKeyReused', 'The `Idempotency-Key` was used with a different request (`IDEMPOTENCY_KEY_REUSED`): use a new key.'],
  413: ['PayloadTooLarge', `The request body is over ${BODY_LIMIT_BYTES / 1024} KiB.`],
  415: ['UnsupportedMediaType', 'The request body is not `application/json` (or, for a change, `application/merge-patch+json`).'],
  429: ['TooManyRequests', 'Over a rate limit (`RATE_LIMITED`), or the key is temporarily banned (`API_KEY_BANNED`). Retry after `Retry-After` seconds, backing off exponentially.'],
  431: ['HeadersTooLarge', 'The request line and headers (`HEADERS_TOO_LARGE`) are over the server\'s limit; the connection is closed.'],
  500: ['Internal', 'An unexpected error; the `X-Request-Id` header identifies it in the logs.'],
  503: ['Unavailable', 'The database is unreachable or too slow, or this instance is shutting down (then with `Retry-After`); retry shortly.'],
};

/** Refused by the HTTP layer before the request is read: counted against no budget, so no limit headers. */
const BEFORE_LIMITS = new Set(['408', '431']);
/**
 * Answers that may come before the request is counted (shutting down, the key table unreachable, anything
 * unexpected): their limit headers are there when it was counted, and so not required.
 */
const MAYBE_UNCOUNTED = new Set(['500', '503']);

/** The headers every counted response carries (each `required` in its component). */
export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset'),
  'RateLimit-Policy': ref('headers', 'RateLimit-Policy'),
  RateLimit: ref('headers', 'RateLimit'),
  'X-Request-Id': ref('headers', 'X-Request-Id'),
};

/** The headers, responses, schemas and security scheme the operations refer to. */
export function components(): OpenAPIV3.ComponentsObject {
  const integer = (description: string) => ({ description, required: true, schema: { type: 'integer' as const } });
  const headers: Record<string, OpenAPIV3.HeaderObject> = {
    'X-RateLimit-Limit': integer('The limit in force: requests allowed in the window with the fewest requests remaining.'),
    'X-RateLimit-Remaining': integer('Requests remaining in that window, this one counted.'),
    'X-RateLimit-Reset': integer('Unix time, in seconds, at which that window resets.'),
    'Retry-After': integer('Seconds to wait before retrying.'),
    'RateLimit-Policy': {
      description: 'IETF httpapi ratelimit-headers draft (a Structured Fields list): each window of the caller\'s plan as a policy, '
        + 'its quota `q` and its length `w` in seconds. Example: `"minute";q=60;w=60, "day";q=1000;w=86400`.',
      required: true,
      schema: { type: 'string' },
    },
    RateLimit: {
      description: 'IETF httpapi ratelimit-headers draft: each policy\'s remaining quota `r` (this request counted) and the seconds `t` '
        + 'until it resets. Example: `"minute";r=41;t=23, "day";r=958;t=40000`. On a 429, the refusing policy with `r=0`.',
      required: true,
      schema: { type: 'string' },
    },
    'X-Request-Id': { description: 'Identifies the request in the service\'s logs; an incoming one is kept.', required: true, schema: { type: 'string' } },
    'WWW-Authenticate': {
      description: 'RFC 6750: the Bearer challenge, `Bearer realm="animal-store"`, with `error="invalid_token"` when a key was sent.',
      required: true,
      schema: { type: 'string', pattern: '^Bearer ' },
    },
    Deprecation: { description: 'RFC 9745: the operation is deprecated, since this date (`@` unix seconds).', required: true, schema: { type: 'string', pattern: '^@\\d+$' } },
    Sunset: { description: 'RFC 8594: the HTTP date on which the operation will be removed.', required: true, schema: { type: 'string' } },
    Location: { description: 'Where the created record lives: its URL path, which a GET answers.', required: true, schema: { type: 'string' } },
    'Idempotent-Replayed': {
      description: '`true` on a response given again to a retry with the same `Idempotency-Key` and body: nothing was created this time.',
      schema: { type: 'string', enum: ['true'] },
    },
    ETag: {
      description: 'RFC 9110 entity tag of this answer: it changes exactly when the answer does. Send it back in `If-None-Match` '
        + 'to get `304 Not Modified` (no body, no point taken) while the answer is unchanged.',
      required: true,
      schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]+"$' },
    },
    'Cache-Status': {
      description: 'RFC 9211: how the service\'s response cache answered a read it may keep: `animal-store; hit`, `animal-store; fwd=miss` '
        + '(made now, and kept), or `animal-store; fwd=bypass` (made now: this instance could not know its copy current). '
        + 'Absent where the cache is off or the answer is never kept.',
      schema: { type: 'string', pattern: '^animal-store; (hit|fwd=miss|fwd=bypass)$' },
    },
    Link: {
      description: 'RFC 8288: `</v1/...?limit=20&cursor=...>; rel="next"` when a next page may follow: the same request with the next '
        + 'page\'s cursor (keyset pages: a page deep in the list costs what the first costs), or, for the event feed, its `after`. '
        + 'Absent on the last page (a feed\'s follower asks again later, after the last event it read).',
      schema: { type: 'string' },
    },
  };
  /** A required header where it is sent only sometimes: the component's text, inline, not required. */
  const sometimes = (names: Record<string, unknown>) =>
    Object.fromEntries(Object.keys(names).map((name) => [name, { ...headers[name]!, required: false }]));
  const errorHeaders = (status: string) => {
    if (BEFORE_LIMITS.has(status)) return { 'X-Request-Id': ref('headers', 'X-Request-Id') };
    const limits = MAYBE_UNCOUNTED.has(status) ? { ...sometimes(RATE_LIMIT_HEADERS), 'X-Request-Id': ref('headers', 'X-Request-Id') } : RATE_LIMIT_HEADERS;
    // Always on a 429; on a 503 when shutting down, on a 409 when the first request with the Idempotency-Key still runs.
    if (status === '429') return { ...limits, 'Retry-After': ref('headers', 'Retry-After') };
    if (status === '503' || status === '409') return { ...limits, ...sometimes({ 'Retry-After': true }) };
    if (status === '401') return { ...limits, 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') };
    return limits;
  };
  return {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer <key>`.' },
    },
    headers,
    schemas: {
      Problem: {
        type: 'object',
        description: 'RFC 9457 problem details: the error body for a client whose `Accept` asks for `application/problem+json`.',
        required: ['type', 'title', 'status', 'detail', 'code'],
        properties: {
          type: {
            type: 'string', format: 'uri-reference',
            description: '`https://iana.org/assignments/http-problem-types#quota-exceeded` for a 429; `about:blank` otherwise (`code` says which problem).',
          },
          title: { type: 'string', description: 'Short summary: the status phrase, or "Quota exceeded".' },
          status: { type: 'integer', description: 'The HTTP status code of the response.' },
          detail: { type: 'string', description: 'Human-readable description: the Error body\'s `message`.' },
          instance: { type: 'string', description: 'The request id, as in `X-Request-Id` and the service\'s logs.' },
          code: { type: 'string', description: 'Machine-readable error code, as in the Error body.', example: 'FORBIDDEN' },
          'violated-policies': {
            type: 'array', items: { type: 'string' },
            description: 'A 429\'s refusing windows, named as in `RateLimit-Policy` (`minute`, `day`).',
          },
        },
      },
      Error: {
        type: 'object',
        required: ['code', 'message', 'status'],
        additionalProperties: false,
        properties: {
          code: { type: 'string', description: 'Machine-readable error code.', example: 'BAD_REQUEST' },
          message: { type: 'string', description: 'Human-readable description.' },
          status: { type: 'integer', description: 'The HTTP status code of the response.' },
        },
      },
    },
    responses: Object.fromEntries(Object.entries(ERRORS).map(([status, [name, description]]) => [name, {
      description,
      headers: errorHeaders(status),
      content: { 'application/json': { schema: ref('schemas', 'Error') }, [PROBLEM_JSON]: { schema: ref('schemas', 'Problem') } },
    }])),
  };
}
