import { createGraphQLError } from '@graphql-tools/utils';
import { GraphQLError, type ASTNode, type Source } from 'graphql';

/** decisions.md, "Errors": the one table of codes both surfaces answer with. */
export const STATUS = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  // A restricted key calling outside its scopes.
  FORBIDDEN: 403,
  // A key held to the trusted documents (GRAPHQL_DOCUMENTS=registered) sending a document of its own.
  PERSISTED_DOCUMENT_REQUIRED: 403,
  NOT_FOUND: 404,
  // A document asked for by hash or id that is not registered: Apollo's and urql's links then send its text.
  PERSISTED_QUERY_NOT_FOUND: 404,
  // Events asked for after an id whose successors were pruned (past EVENT_RETENTION_HOURS).
  EVENTS_EXPIRED: 410,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  CONFLICT: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  // A retry whose first try committed but was never answered: nothing is written again.
  IDEMPOTENCY_KEY_APPLIED: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  API_KEY_BANNED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  // A subscription whose client read slower than its events came, past the stream's queue: subscribe again.
  STREAM_OVERFLOW: 503,
} as const;
export type ErrorCode = keyof typeof STATUS;

/**
 * What is wrong with one input value, said where the value was coerced, so that each surface can word it
 * for its own clients (a REST client sent a body field or a parameter, not a GraphQL variable).
 */
export interface InputProblem {
  /** From the argument down: `['input', 'categoryId']`, `['limit']`. */
  readonly path: readonly (string | number)[];
  readonly problem: 'invalid' | 'unknown' | 'missing';
  /** Why the value is refused (invalid), or why the field may not be sent (unknown; empty when nothing more is to be said). */
  readonly detail: string;
}

export interface AppErrorOptions {
  /** What the refusal needs besides its body: Allow, Retry-After, WWW-Authenticate, Connection. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly input?: InputProblem;
  /** Members a problem details body (RFC 9457) carries beyond the standard ones: a 429's `violated-policies`. */
  readonly problem?: Readonly<Record<string, unknown>>;
  /** Where in the document the error is (a GraphQL client finds the failing field by it). */
  readonly nodes?: readonly ASTNode[] | ASTNode;
  readonly path?: readonly (string | number)[];
  /** A syntax error's place: it has no node. */
  readonly source?: Source;
  readonly positions?: readonly number[];
}

/**
 * A GraphQLError with a code of the table: yoga's masking passes it through, graphql-js keeps it as the
 * cause of the errors it wraps, and the error boundary renders it. (A plain Error would have graphql-js
 * prefix the messages of errors thrown from scalars.)
 */
export type AppError = GraphQLError & {
  readonly extensions: { readonly code: ErrorCode; readonly status: number };
  readonly headers?: Readonly<Record<string, string>>;
  readonly input?: InputProblem;
  readonly problem?: Readonly<Record<string, unknown>>;
};

export function appError(code: ErrorCode, message: string, { headers, input, problem, ...place }: AppErrorOptions = {}): AppError {
  const error = createGraphQLError(message, { ...place, extensions: { code, status: STATUS[code] } });
  // Not enumerable: they are for the renderer, never part of a GraphQL error's JSON.
  if (headers) Object.defineProperty(error, 'headers', { value: headers });
  if (input) Object.defineProperty(error, 'input', { value: input });
  if (problem) Object.defineProperty(error, 'problem', { value: problem });
  return error as AppError;
}

/** One of ours: a code from the table with its status (yoga's own errors may carry a bare code). */
export function isAppError(error: unknown): error is AppError {
  if (!(error instanceof GraphQLError)) return false;
  // graphql-jit's errors may have no extensions at all.
  const { code, status } = error.extensions ?? {};
  return typeof code === 'string' && Object.hasOwn(STATUS, code) && status === STATUS[code as ErrorCode];
}
