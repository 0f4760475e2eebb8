import { appError } from '../errors.js';

/** Driver error codes that mean "the database cannot be reached", as opposed to a bad query. */
const UNREACHABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'POOL_CLOSED', 'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN', 'ER_ACCESS_DENIED_ERROR', 'SQLITE_BUSY', 'SQLITE_CANTOPEN', 'SQLITE_IOERR',
]);

function driverCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; driverError?: unknown };
  if (typeof e.code === 'string') return e.code;
  return driverCode(e.driverError);
}

export function isUnreachable(error: unknown): boolean {
  const code = driverCode(error);
  return code !== undefined && (UNREACHABLE.has(code) || code.startsWith('SQLITE_IOERR'));
}

/** Turns an outage into a 503 the client can retry; any other failure stays unexpected (500, logged). */
export function failUnavailable(error: unknown): never {
  if (isUnreachable(error)) throw appError('UNAVAILABLE', 'The database is unavailable; try again shortly');
  throw error;
}
