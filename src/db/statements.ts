import type { Dialect } from './dialect.js';

export type Row = Record<string, unknown>;

/** What a write did. */
export interface Written {
  /** The id an INSERT generated. */
  readonly insertId: number;
  readonly affectedRows: number;
  /** Where the write left the primary's history (MySQL's GTID), when the server tracks it. */
  readonly position?: string;
}

/** Fixed SQL with parameters, returning plain rows. */
export interface Statements {
  all(sql: string, params: readonly unknown[]): Promise<Row[]>;
  run(sql: string, params: readonly unknown[]): Promise<Written>;
}

export interface Prepared extends Statements {
  readonly dialect: Dialect;
  /**
   * Runs `work` in one transaction, on one connection, holding the write locks it takes until the end:
   * committed when it resolves, rolled back when it throws. Rows read with `FOR_UPDATE[dialect]` stay
   * locked for it (SQLite locks the whole database for the transaction instead). `committed` hears the
   * position the COMMIT left, when the server tracks it.
   */
  transaction<T>(work: (tx: Statements) => Promise<T>, committed?: (position: string | undefined) => void): Promise<T>;
  /**
   * Runs fixed statements, in order, as one transaction, in one round trip where the server can (on
   * MariaDB one prepared compound statement; on MySQL, which has none, one prepared statement each
   * between START TRANSACTION and COMMIT). Each statement's result in order: rows for a SELECT, what it
   * did for the others. Nothing is committed when one fails.
   */
  batch(statements: readonly Statement[], committed?: (position: string | undefined) => void): Promise<(Row[] | Written)[]>;
}

/** One statement of a batch: its SQL and its parameters. */
export type Statement = readonly [sql: string, params: readonly unknown[]];

export const isSelect = (sql: string) => /^\s*select\b/i.test(sql);

/** Fixed statements one after the other, each prepared, on one transaction's statements. */
export async function inOrder(tx: Statements, statements: readonly Statement[]): Promise<(Row[] | Written)[]> {
  const results: (Row[] | Written)[] = [];
  for (const [sql, params] of statements) results.push(await (isSelect(sql) ? tx.all(sql, params) : tx.run(sql, params)));
  return results;
}
