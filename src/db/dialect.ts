/**
 * What the SQL of MySQL (MariaDB) and SQLite says differently, in one place: the stores write their
 * statements once, and take the few words that differ from here, by dialect.
 */
export type Dialect = 'mysql' | 'sqlite';

/** A locking read. SQLite has none, and needs none: a writing transaction excludes the others. */
export const FOR_UPDATE = { mysql: ' FOR UPDATE', sqlite: '' } as const satisfies Record<Dialect, string>;

/** Rows locked by one transaction, the others skipping them rather than waiting (MySQL 8, MariaDB 10.6). */
export const SKIP_LOCKED = { mysql: ' FOR UPDATE SKIP LOCKED', sqlite: '' } as const satisfies Record<Dialect, string>;

/** An INSERT that leaves a row already there (same key) as it is. */
export const INSERT_IGNORE = { mysql: 'INSERT IGNORE', sqlite: 'INSERT OR IGNORE' } as const satisfies Record<Dialect, string>;

/** The id the statement before generated, in the same transaction's next statement. */
export const LAST_ID = { mysql: 'LAST_INSERT_ID()', sqlite: 'last_insert_rowid()' } as const satisfies Record<Dialect, string>;

/** `(?, ?, ?)` for n values: one statement per list length, which the drivers keep prepared. */
export const placeholders = (n: number) => `(${Array.from({ length: n }, () => '?').join(', ')})`;
