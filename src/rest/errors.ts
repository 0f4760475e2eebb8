import { appError, type AppError } from '../errors.js';
import { classify, mostSevere } from '../pipeline/error-response.js';
import { BODY_ARGUMENT } from './routes.js';

/** `categoryId`, `tags[0].name`: a field as the body has it, below the argument the body is. */
const fieldName = (path: readonly (string | number)[]) =>
  path.map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : i === 0 ? segment : `.${segment}`)).join('');

/**
 * A REST client sent a body field or a parameter, not a GraphQL variable: an input problem is worded for
 * it from what the coercion found (see graphql/coerce.ts), every other error keeps its message.
 */
function restMessage({ input, message }: AppError): string {
  if (!input) return message;
  const [argument, ...below] = input.path;
  const field = below.length > 0 ? fieldName(below) : argument === BODY_ARGUMENT ? 'request body' : String(argument);
  switch (input.problem) {
    case 'unknown': return `Unknown field "${field}" in the request body${input.detail ? `: ${input.detail}` : ''}`;
    case 'missing': return `Missing required field "${field}" in the request body`;
    default: return `Invalid "${field}": ${input.detail}`;
  }
}

/**
 * SOFA's errorHandler: the errors of one request (a parameter SOFA could not read, or an execution's,
 * already classified by the executor, which knows the request id) become one error, the most severe, in
 * REST's words. It is thrown, to be rendered where the request is known (the body its client accepts).
 */
export function throwRestErrors(errors: readonly unknown[]): never {
  const worst = mostSevere(errors.map((error) => classify(error)));
  throw worst.input ? appError(worst.extensions.code, restMessage(worst), { headers: worst.headers }) : worst;
}
