import { appError } from '../errors.js';
import { placeholders } from './dialect.js';
import type { Prepared, Statement, Statements } from './prepared.js';

/** How long a fence stands: as long as the response it stands for is kept for retries (records.ts). */
export const FENCE_SECONDS = 24 * 60 * 60;

const STAND = 'INSERT INTO idempotency_fences (id, expires_at) VALUES (?, ?)';
// A fence past its day that pruning has not reached yet: the key's new request may go on.
const LAPSED = 'DELETE FROM idempotency_fences WHERE id = ? AND expires_at < ?';

/**
 * The statements of a request that holds an Idempotency-Key, each of its writes fenced: the write's own
 * transaction first inserts a row named for the key and the write's place in the request (its first,
 * second... write), so the write and its fence commit together or not at all. A retry whose first try
 * committed (its answer lost: the primary went away as it committed, or the call passed its deadline)
 * then finds the fence and writes nothing: it is answered 409 IDEMPOTENCY_KEY_APPLIED. A concurrent try
 * waits on the fence's row lock until the first one's transaction ends. Reads pass through. One INSERT
 * in the write's round trip; a lapsed fence is cleared only when one is found in the way.
 */
export function fenced(sql: Prepared, claim: string, now: () => number): Prepared {
  let writes = 0;
  const next = () => `${claim}.${++writes}`;
  const stand = (id: string): Statement => [STAND, [id, now() + FENCE_SECONDS * 1000]];
  /** Runs `write` with fence `id`; once more if the fence in its way had lapsed. */
  const guarded = async <T>(id: string, write: () => Promise<T>): Promise<T> => {
    try {
      return await write();
    } catch (error) {
      if (!isFence(error, id)) throw error;
      if ((await sql.run(LAPSED, [id, now()])).affectedRows === 0) throw applied();
      return write().catch((again: unknown) => { throw isFence(again, id) ? applied() : again; });
    }
  };
  const batch: Prepared['batch'] = async (statements, committed) => {
    const id = next();
    const results = await guarded(id, () => sql.batch([stand(id), ...statements], committed));
    return results.slice(1);
  };
  return {
    dialect: sql.dialect,
    all: (query, params) => sql.all(query, params),
    batch,
    run: async (query, params) => (await batch([[query, params]]))[0] as Awaited<ReturnType<Statements['run']>>,
    transaction: (work, committed) => {
      const id = next();
      return guarded(id, () => sql.transaction(async (tx) => {
        await tx.run(...stand(id));
        return work(tx);
      }, committed));
    },
  };
}

const applied = () => appError('IDEMPOTENCY_KEY_APPLIED', 'The first request with this Idempotency-Key was applied, but its answer was lost '
  + '(the database went away as it committed): it has not been applied again. Read what it changed to see the outcome; '
  + 'use a new key for a new request');

/**
 * The fence's own duplicate: MySQL quotes the entry (its first 64 characters: the claim's hash, unique to
 * the request, starts it), SQLite names the column.
 */
function isFence(error: unknown, id: string): boolean {
  const { errno, code, message } = (error ?? {}) as { errno?: unknown; code?: unknown; message?: unknown };
  const text = String(message);
  return (errno === 1062 && text.includes(`'${id.slice(0, 48)}`)) || (String(code).startsWith('SQLITE_CONSTRAINT') && text.includes('idempotency_fences.id'));
}

/** Fences past their time, `batch` at a time: beside the outbox's pruning. */
export async function pruneFences(sql: Statements, before: number, batch = 500): Promise<number> {
  let removed = 0;
  for (;;) {
    const ids = (await sql.all('SELECT id FROM idempotency_fences WHERE expires_at < ? LIMIT ?', [before, String(batch)])).map((row) => String(row.id));
    if (ids.length === 0) return removed;
    removed += (await sql.run(`DELETE FROM idempotency_fences WHERE id IN ${placeholders(ids.length)} AND expires_at < ?`, [...ids, before])).affectedRows;
    if (ids.length < batch) return removed;
  }
}
