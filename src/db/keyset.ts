import type { Prepared, Row, Statements } from './prepared.js';

/** A page of a list: `limit` records after the id `after` (0: from the start), optionally of one status. */
export interface PageQuery {
  readonly limit: number;
  readonly status?: string;
  readonly after?: number;
}

/**
 * Keyset pages, never OFFSET: a page deep in the table costs what the first costs. The status filter
 * names its (status, id) index, because MariaDB plans `status = ? AND id > ? ORDER BY id` as a scan from
 * the start of the status range without it (19 ms against 0.2 ms at 1M rows). The SQL is made once; the
 * page is read through whichever statements the caller has (a request's session among them).
 */
export function keysetPages(dialect: Prepared['dialect'], table: string, columns: string, statusIndex: string) {
  const hint = dialect === 'mysql' ? ` FORCE INDEX (${statusIndex})` : ` INDEXED BY ${statusIndex}`;
  const all = `SELECT ${columns} FROM ${table} WHERE id > ? ORDER BY id LIMIT ?`;
  const byStatus = `SELECT ${columns} FROM ${table}${hint} WHERE status = ? AND id > ? ORDER BY id LIMIT ?`;
  // LIMIT as a string: MySQL's binary protocol refuses a DOUBLE for it, and mysql2 sends JS numbers as one.
  return (sql: Statements, { limit, status, after = 0 }: PageQuery): Promise<Row[]> => (status
    ? sql.all(byStatus, [status, after, String(limit)])
    : sql.all(all, [after, String(limit)]));
}
