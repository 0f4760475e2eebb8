import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { GraphQLError } from 'graphql';
import { isAppError } from '../errors.js';

/** The error under graphql-js's wrappers: ours, a plain GraphQL one (the client's), or anything else. */
function causeOf(error: unknown): unknown {
  let cause = error;
  while (cause instanceof GraphQLError && !isAppError(cause) && cause.originalError) cause = cause.originalError;
  return cause;
}

/** The server's fault: a 5xx of ours, or anything unexpected (answered as INTERNAL). */
function isFault(cause: unknown): boolean {
  return isAppError(cause) ? cause.extensions.status >= 500 : !(cause instanceof GraphQLError);
}

/**
 * Notes on a span why its work failed, by the code the client is answered with. A refusal below 500 (a
 * 429 from the limits, a reused Idempotency-Key, a syntax or validation error) is the work done right:
 * the span keeps its status and only says which. Anything else is an error, and an unexpected one is
 * recorded whole (its stack) since the client is told nothing of it. Of several, the first fault counts.
 */
export function failed(span: Span, ...errors: readonly unknown[]): void {
  const causes = errors.map(causeOf);
  const cause = causes.find(isFault) ?? causes[0];
  if (isAppError(cause)) {
    span.setAttribute(ATTR_ERROR_TYPE, cause.extensions.code);
    if (isFault(cause)) span.setStatus({ code: SpanStatusCode.ERROR, message: cause.extensions.code });
  } else if (cause instanceof GraphQLError) {
    // GraphQL all the way down: the client's document or variables (classify() answers it as BAD_REQUEST).
    span.setAttribute(ATTR_ERROR_TYPE, 'BAD_REQUEST');
  } else {
    span.setAttribute(ATTR_ERROR_TYPE, 'INTERNAL');
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'INTERNAL' });
    if (cause instanceof Error) span.recordException(cause);
  }
}
