import { appError } from '../errors.js';

/**
 * Driver error codes that mean "the database cannot serve this now", as opposed to a bad query: out of
 * reach, or a statement that ran past the statement timeout or waited for a lock that long.
 */
const UNREACHABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'POOL_CLOSED', 'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN', 'ER_ACCESS_DENIED_ERROR', 'SQLITE_CANTOPEN', 'DEADLINE_EXCEEDED',
  'ER_LOCK_WAIT_TIMEOUT', 'ER_LOCK_DEADLOCK', 'ER_QUERY_INTERRUPTED', 'ER_QUERY_TIMEOUT',
]);
/** MariaDB's "max_statement_time exceeded", which mysql2 has no name for. */
const UNREACHABLE_ERRNO = new Set([1969]);

function driverError(error: unknown): { code?: unknown; errno?: unknown } | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; errno?: unknown; driverError?: unknown };
  if (typeof e.code === 'string' || typeof e.errno === 'number') return e;
  return driverError(e.driverError);
}

export function isUnreachable(error: unknown): boolean {
  const e = driverError(error);
  if (typeof e?.errno === 'number' && UNREACHABLE_ERRNO.has(e.errno)) return true;
  const code = e?.code;
  return typeof code === 'string'
    && (UNREACHABLE.has(code) || code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_BUSY'));
}

/** Turns an outage into a 503 the client can retry; any other failure stays unexpected (500, logged). */
export function failUnavailable(error: unknown): never {
  if (isUnreachable(error)) throw appError('UNAVAILABLE', 'The database is unavailable; try again shortly');
  throw error;
}
