import { fixedFieldReason } from '../domain/fixed-fields.js';
import { appError, mostSevere, renderError, toAppError, type AppError } from '../errors.js';
import { BODY_ARGUMENT } from './routes.js';

/**
 * graphql-js words a bad argument as a GraphQL variable (`Variable "$input" got invalid value … at
 * "input.categoryId"; …`). A REST client sent a parameter or a body field: name that instead.
 */
const COERCION = /^Variable "\$(\w+)" got invalid value [\s\S]*?(?: at "\w+((?:\.\w+|\[\d+\])+)")?; ([\s\S]*)$/;
const UNKNOWN_FIELD = /^Field "(\w+)" is not defined by type "(\w+)"/;
const MISSING_FIELD = /^Field "(\w+)" of required type "[^"]+" was not provided\.?$/;

export function restMessage(message: string): string {
  const match = COERCION.exec(message);
  if (!match) return message;
  const [, variable = '', path, detail = ''] = match;
  const unknown = UNKNOWN_FIELD.exec(detail);
  if (unknown) {
    const reason = fixedFieldReason(unknown[2]!, unknown[1]!);
    return `Unknown field "${unknown[1]}" in the request body${reason ? `: ${reason}` : ''}`;
  }
  const missing = MISSING_FIELD.exec(detail);
  if (missing) return `Missing required field "${missing[1]}" in the request body`;
  const name = path ? path.slice(1) : variable === BODY_ARGUMENT ? 'request body' : variable;
  return `Invalid "${name}": ${detail}`;
}

function restError(error: unknown, requestId?: string): AppError {
  const coded = toAppError(error, requestId);
  if (coded.extensions.code !== 'BAD_REQUEST') return coded;
  const message = restMessage(coded.message);
  return message === coded.message ? coded : appError('BAD_REQUEST', message);
}

/**
 * SOFA's errorHandler: every error it meets, rendered as the REST Error body. Errors of execution reach it
 * already coded by the executor, which knows the request id; SOFA itself does not pass it.
 */
export function renderRestErrors(errors: readonly unknown[], requestId?: string): Response {
  return renderError(mostSevere(errors.map((error) => restError(error, requestId))), 'rest');
}
