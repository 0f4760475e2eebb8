import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppError } from '../errors.js';
import type { Surface } from './error-response.js';

/**
 * Per-request state the steps hand to each other; it lives exactly as long as the request. These are the
 * core's fields: each concern declares its own beside its step (`declare module`), so the core imports none.
 */
export interface ServerContext {
  readonly req?: IncomingMessage;
  readonly res?: ServerResponse;
  /**
   * A request that did not come on node:http's own (an operation sent over a WebSocket): the address of
   * the socket it came on, and the transport, which its log line names.
   */
  readonly via?: { readonly transport: 'websocket'; readonly remoteAddress: string | undefined };
  /** When the request reached the pipeline (performance.now()). */
  startedAt: number;
  /** Every log line about the request carries it; so does the response. */
  requestId?: string;
  /** What the path is: set first, read by every later step. */
  route: Route;
  /** The request's path, as the route was resolved from it. */
  pathname: string;
  /** Its query string, with the `?` (or empty). */
  search: string;
  /** The values of the path's `:name` segments, decoded. */
  pathParams: Readonly<Record<string, string>>;
  /** The API operation the method and path name: what it takes, and its handler. */
  endpoint?: Endpoint;
  /** The parsed JSON body of a POST or PATCH, read once, within its limits. */
  body?: unknown;
  /** Points this request costs: one, none for a free endpoint, one per root field of a GraphQL operation. */
  cost: number;
  /** What is wrong with the request as an API call, answered once it has been counted and authenticated. */
  rejection?: AppError;
}

/** One API operation: a method on a path, what it takes, and who answers it. Resolved once, at startup. */
export interface Endpoint {
  /** The media types of the JSON body it reads; without them, it reads none. */
  readonly body?: readonly string[];
  /** Costs no point: the quota look-up, which must answer when the quota is spent. */
  readonly free?: boolean;
  /** Takes an Idempotency-Key (the REST routes that create). */
  readonly takesIdempotencyKey?: boolean;
  handle(request: Request, serverContext: ServerContext): Response | Promise<Response>;
}

/** A public path: answered before any key is asked for. */
export interface PublicEndpoint {
  /** Answers a GET (and, without its body, a HEAD). */
  get(request: Request): Response | Promise<Response>;
  /**
   * The path also serves the API (GraphiQL lives on /graphql): only the requests this accepts are the
   * page's, the rest go on to the authenticated pipeline.
   */
  takes?(request: Request): boolean;
}

/** What a path is, resolved once per request, first: every later step reads it from the server context. */
export interface Route {
  /** A bounded name for logs and metrics: the route template, a public path, or `unmatched`. */
  readonly label: string;
  /** How its refusals are answered: the Error body, or GraphQL-over-HTTP under /graphql. */
  readonly surface: Surface;
  /** Health, readiness, metrics: answered before anything is counted. */
  readonly probe?: PublicEndpoint;
  /** Public pages (documents, docs, GraphiQL), counted against the caller's budget. */
  readonly page?: PublicEndpoint;
  /** The API operations of the path, by method: HEAD is the GET's endpoint, answered without its body. */
  readonly methods?: ReadonlyMap<string, Endpoint>;
  /** The methods the path takes, as `Allow` and a CORS preflight list them (`GET, HEAD, POST`); none for an unknown path. */
  readonly allow?: string;
}
