import type { DataSource } from 'typeorm';
import { failUnavailable } from './unavailable.js';

/** What a data source's calls may take, by data source: set where it is made, read by the stores. */
const bounds = new WeakMap<DataSource, { deadlineMs: number; retryBusy: boolean }>();

export function setDeadline(dataSource: DataSource, statementTimeoutSeconds: number, retryBusy: boolean): void {
  // The server's own bound ends a slow statement first; this one ends a call the network holds.
  bounds.set(dataSource, { deadlineMs: statementTimeoutSeconds * 1000 + 500, retryBusy });
}

/** How long a call to a busy SQLite file waits before it tries again. */
const BUSY_RETRY_MS = 10;

class DeadlineExceeded extends Error {
  readonly code = 'DEADLINE_EXCEEDED';
  constructor(ms: number) { super(`No answer from the database within ${ms} ms`); }
}

const isBusy = (error: unknown): boolean => {
  const code = (error as { code?: unknown; driverError?: { code?: unknown } } | null)?.code
    ?? (error as { driverError?: { code?: unknown } } | null)?.driverError?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
};

/** Resolves with the promise, or rejects with DeadlineExceeded after `ms`. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new DeadlineExceeded(ms)), ms); });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * One call to the database, never longer than its deadline: past it, or when the database is out of
 * reach, the request gets 503 UNAVAILABLE. A busy SQLite file is tried again until then.
 */
export function bounded<T>(dataSource: DataSource, call: () => Promise<T>): Promise<T> {
  const bound = bounds.get(dataSource);
  if (!bound) return call().catch(failUnavailable);
  const started = Date.now();
  const attempt = (): Promise<T> => call().catch(async (error: unknown) => {
    if (!bound.retryBusy || !isBusy(error) || Date.now() - started + BUSY_RETRY_MS > bound.deadlineMs) throw error;
    await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
    return attempt();
  });
  return within(attempt(), bound.deadlineMs).catch(failUnavailable);
}
