import { STATUS_CODES } from 'node:http';
import { createGraphQLError } from '@graphql-tools/utils';
import { GraphQLError } from 'graphql';
import { explainUnknownField } from './domain/fixed-fields.js';
import { log } from './log.js';
import { Response } from './pipeline/response.js';

/** decisions.md, "Errors": the one table of codes both surfaces answer with. */
export const STATUS = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  CONFLICT: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  API_KEY_BANNED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;
export type ErrorCode = keyof typeof STATUS;

export type AppError = GraphQLError & { extensions: { code: ErrorCode; status: number } };

/** A plain GraphQLError: yoga's masking passes it through, the REST error handler maps it to its status. */
export function appError(code: ErrorCode, message: string): AppError {
  return createGraphQLError(message, { extensions: { code, status: STATUS[code] } }) as AppError;
}

/** One of ours: a code from the table with its status (yoga's own errors may carry a bare code). */
export function isAppError(error: unknown): error is AppError {
  if (!(error instanceof GraphQLError)) return false;
  // graphql-jit's errors may have no extensions at all.
  const { code, status } = error.extensions ?? {};
  return typeof code === 'string' && Object.hasOwn(STATUS, code) && status === STATUS[code as ErrorCode];
}

/**
 * Gives every error a code from the table. An error that is GraphQL all the way down (syntax, validation,
 * variable coercion, our own scalars) is the client's: graphql-js's outer message keeps the context
 * (which variable, which field). Anything with another cause is unexpected: it is logged with the
 * request id and answered without a word about its cause.
 */
export function toAppError(error: unknown, requestId?: string): AppError {
  if (isAppError(error)) return error;
  if (error instanceof GraphQLError) {
    let cause: unknown = error;
    while (cause instanceof GraphQLError && cause.originalError) cause = cause.originalError;
    if (cause instanceof GraphQLError) {
      const code = isAppError(cause) ? cause.extensions.code : clientCode(error);
      return withLocation(appError(code, code === 'BAD_REQUEST' ? explainUnknownField(error.message) : error.message), error);
    }
  }
  log.error({ requestId, err: error instanceof GraphQLError ? (error.originalError ?? error) : error }, 'unexpected error');
  return withLocation(appError('INTERNAL', 'Internal error'), error);
}

/** yoga marks its own refusals (a mutation over GET: 405) with an HTTP status; the code follows it. */
function clientCode(error: GraphQLError): ErrorCode {
  const status = (error.extensions.http as { status?: number } | undefined)?.status;
  const byStatus = Object.entries(STATUS).find(([, s]) => s === status && s < 500);
  return (byStatus?.[0] as ErrorCode | undefined) ?? 'BAD_REQUEST';
}

/**
 * Keeps what the replaced error carried besides its message: the path and locations a GraphQL client
 * uses to find the failing field, and yoga's `extensions.http` (status and headers such as Allow), which
 * yoga reads for the response and leaves out of the body.
 */
function withLocation(target: AppError, source: unknown): AppError {
  if (!(source instanceof GraphQLError)) return target;
  const { http } = source.extensions;
  if (source.path === undefined && source.nodes === undefined && http === undefined) return target;
  return createGraphQLError(target.message, {
    nodes: source.nodes, source: source.source, positions: source.positions, path: source.path,
    extensions: http === undefined ? target.extensions : { ...target.extensions, http },
  }) as AppError;
}

/** The error with the highest status wins, as in SOFA's default handler. */
export function mostSevere(errors: readonly AppError[]): AppError {
  return errors.reduce((worst, e) => (e.extensions.status > worst.extensions.status ? e : worst));
}

export type Surface = 'rest' | 'graphql';

/** The only place error bodies are built: `{code, message, status}` for REST, GraphQL-over-HTTP for /graphql. */
export function renderError(error: AppError, surface: Surface, headers: HeadersInit = {}): Response {
  const { code, status } = error.extensions;
  const body = surface === 'rest'
    ? { code, message: error.message, status }
    : { errors: [{ message: error.message, extensions: { code, status } }] };
  return Response.json(body, { status, statusText: STATUS_CODES[status], headers });
}
