import type { IncomingMessage } from 'node:http';
import type { Caller } from '../auth/authenticate.js';
import type { Surface } from '../errors.js';

/** Per-request state the plugins hand to each other; it lives exactly as long as the request. */
export interface ServerContext {
  readonly req?: IncomingMessage;
  surface?: Surface;
  /** `METHOD /path` of the matched REST route, as in REST_ROUTES. */
  restRoute?: string;
  /** The parsed JSON body of a POST, read once by the transport guard. */
  body?: unknown;
  /** Who is calling: a key, or an anonymous client (set by useIdentify). */
  caller?: Caller;
  /** The client's address, as TRUST_PROXY says to read it. */
  address?: string;
  /** The rate-limit headers every response of this request carries. */
  rateLimitHeaders?: Record<string, string>;
  /** Why the request was refused with 429, for the metrics. */
  refusal?: 'RATE_LIMITED' | 'API_KEY_BANNED';
}
