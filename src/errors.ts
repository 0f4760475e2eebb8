import { STATUS_CODES } from 'node:http';
import { createGraphQLError } from '@graphql-tools/utils';
import { GraphQLError } from 'graphql';
import { log } from './log.js';

/** decisions.md, "Errors": the one table of codes both surfaces answer with. */
export const STATUS = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
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

export function isAppError(error: unknown): error is AppError {
  return error instanceof GraphQLError && typeof error.extensions.code === 'string' && error.extensions.code in STATUS;
}

/**
 * Gives every error a code from the table. An error that is GraphQL all the way down (syntax, validation,
 * variable coercion, our own scalars) is the client's: graphql-js's outer message keeps the context
 * (which variable, which field). Anything with another cause is unexpected: it is logged with the
 * request id and answered without a word about its cause.
 */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  if (error instanceof GraphQLError) {
    let cause: unknown = error;
    while (cause instanceof GraphQLError && cause.originalError) cause = cause.originalError;
    if (cause instanceof GraphQLError) {
      return withLocation(appError(isAppError(cause) ? cause.extensions.code : 'BAD_REQUEST', error.message), error);
    }
  }
  log.error({ err: error instanceof GraphQLError ? (error.originalError ?? error) : error }, 'unexpected error');
  return withLocation(appError('INTERNAL', 'Internal error'), error);
}

/** Keeps the path and locations a GraphQL client uses to find the failing field. */
function withLocation(target: AppError, source: unknown): AppError {
  if (!(source instanceof GraphQLError) || (source.path === undefined && source.nodes === undefined)) return target;
  return createGraphQLError(target.message, {
    nodes: source.nodes, source: source.source, positions: source.positions, path: source.path,
    extensions: target.extensions,
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
