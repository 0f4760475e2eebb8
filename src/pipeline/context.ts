import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Caller } from '../auth/authenticate.js';
import type { AppError } from '../errors.js';
import type { WindowState } from '../limits/headers.js';
import type { GraphQLRequest } from '../graphql/params.js';
import type { Route } from './routing.js';

/** Per-request state the plugins hand to each other; it lives exactly as long as the request. */
export interface ServerContext {
  readonly req?: IncomingMessage;
  readonly res?: ServerResponse;
  /** When the request reached the pipeline (performance.now()). */
  startedAt: number;
  /** Every log line about the request carries it; so does the response. */
  requestId?: string;
  /** What the path is: set first, read by every later step. */
  route: Route;
  /** The request's path, as the route was resolved from it. */
  pathname: string;
  /** The values of the path's `:name` segments, decoded. */
  pathParams: Readonly<Record<string, string>>;
  /** `METHOD /path` of the matched REST route, as in REST_ROUTES. */
  restRoute?: string;
  /** The parsed JSON body of a POST, read once, within its limits. */
  body?: unknown;
  /** A GraphQL request, its document parsed and checked against the operation limits. */
  graphql?: GraphQLRequest;
  /** Points this request costs: one, or one per root field of a GraphQL operation. */
  cost: number;
  /** What is wrong with the request as an API call, answered once it has been counted and authenticated. */
  rejection?: { readonly error: AppError; readonly headers: Record<string, string> };
  /** Who is calling: a key, or an anonymous client (set by useIdentify). */
  caller?: Caller;
  /** The client's address, as TRUST_PROXY says to read it. */
  address?: string;
  /** The rate-limit headers every response of this request carries. */
  rateLimitHeaders?: Record<string, string>;
  /** The caller's windows after this request was counted (the quota look-up answers them). */
  counted?: { readonly at: number; readonly windows: readonly WindowState[] };
  /** Why the request was refused with 429, for the metrics. */
  refusal?: 'RATE_LIMITED' | 'API_KEY_BANNED';
  /** Aborts when a subscription's stream must end early (its key was revoked). */
  streamSignal?: AbortSignal;
  /** The Idempotency-Key this request claimed: its response is kept, or the claim released. */
  idempotency?: { readonly id: string; readonly fingerprint: string };
  /** The cursor of a list's next page, when there may be one: REST's Link header. */
  nextCursor?: string;
  /** Headers a REST route adds to its success response (Location, Deprecation, Sunset). */
  responseHeaders?: Record<string, string>;
}
