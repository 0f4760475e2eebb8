import { STATUS_CODES } from 'node:http';
import { GraphQLError } from 'graphql';
import { appError, isAppError, STATUS, type AppError, type ErrorCode } from '../errors.js';
import { log } from '../log.js';
import { problemDetails, PROBLEM_JSON, wantsProblemDetails } from './problem-details.js';
import { Response } from './response.js';

/**
 * Gives every error a code from the table. An error that is GraphQL all the way down (syntax, validation,
 * our own scalars, yoga's refusals) is the client's: graphql-js's outer message keeps the context (which
 * variable, which field). Anything with another cause is unexpected: it is logged with the request id and
 * answered without a word about its cause.
 */
export function classify(error: unknown, requestId?: string): AppError {
  if (isAppError(error)) return error;
  if (error instanceof GraphQLError) {
    let cause: unknown = error;
    while (cause instanceof GraphQLError && cause.originalError) cause = cause.originalError;
    if (cause instanceof GraphQLError) {
      const http = error.extensions.http as { status?: number; headers?: Record<string, string> } | undefined;
      const code = isAppError(cause) ? cause.extensions.code : codeOfStatus(http?.status);
      return appError(code, error.message, {
        nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, headers: http?.headers ?? (isAppError(cause) ? cause.headers : undefined),
        input: isAppError(cause) ? cause.input : undefined,
      });
    }
  }
  log.error({ requestId, err: error instanceof GraphQLError ? (error.originalError ?? error) : error }, 'unexpected error');
  return appError('INTERNAL', 'Internal error', error instanceof GraphQLError ? { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path } : {});
}

/** yoga marks its own refusals (a mutation over GET: 405) with an HTTP status; the code follows it. */
function codeOfStatus(status: number | undefined): ErrorCode {
  const byStatus = Object.entries(STATUS).find(([, s]) => s === status && s < 500);
  return (byStatus?.[0] as ErrorCode | undefined) ?? 'BAD_REQUEST';
}

/** The error with the highest status wins, as in SOFA's default handler. */
export function mostSevere(errors: readonly AppError[]): AppError {
  return errors.reduce((worst, e) => (e.extensions.status > worst.extensions.status ? e : worst));
}

/** The Error body of decisions.md: what every REST refusal, probe and page answers. */
export function errorBody({ extensions: { code, status }, message }: AppError) {
  return { code, message, status };
}

/** A response in the error's status, with the headers the error carries. */
export function errorResponse(error: AppError, body: unknown, contentType?: string): Response {
  const { status } = error.extensions;
  const headers: Record<string, string> = { ...error.headers };
  if (contentType) headers['content-type'] = contentType;
  return Response.json(body, { status, statusText: STATUS_CODES[status], headers });
}

/** How a surface answers a refusal: its error shape, in the media type its client accepts. */
export interface Surface {
  renderError(error: AppError, request: Request, requestId?: string): Response;
}

/**
 * The Error body `{code, message, status}`: REST, the probes and the pages. A client that asks for
 * `application/problem+json` gets RFC 9457 problem details instead.
 */
export const errorBodies: Surface = {
  renderError: (error, request, requestId) => (wantsProblemDetails(request)
    ? errorResponse(error, problemDetails(error, requestId), PROBLEM_JSON)
    : errorResponse(error, errorBody(error))),
};
