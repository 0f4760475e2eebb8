import type { Database, Statement as SqliteStatement } from 'better-sqlite3';
import type { DataSource } from 'typeorm';
import { inOrder, type Prepared, type Row, type Statements } from './statements.js';

/** The embedded store's one connection as Prepared: statements prepared once and kept, transactions one at a time. */
export function sqlite(dataSource: DataSource): Prepared {
  const database = (dataSource.driver as unknown as { databaseConnection: Database }).databaseConnection;
  const cache = new Map<string, SqliteStatement>();
  const statement = (sql: string) => {
    let found = cache.get(sql);
    if (!found) cache.set(sql, found = database.prepare(sql));
    return found;
  };
  // better-sqlite3 is synchronous; a promise keeps one shape for callers, and a thrown error a rejection.
  const direct: Statements = {
    all: async (sql, params) => statement(sql).all(...params) as Row[],
    run: async (sql, params) => {
      const { lastInsertRowid, changes } = statement(sql).run(...params);
      return { insertId: Number(lastInsertRowid), affectedRows: changes };
    },
  };
  // One connection serves every request: while a transaction is open (across its awaits), other statements
  // wait for it to end rather than run inside it.
  let open: Promise<void> | undefined;
  // The statement runs in the same tick as the wait ends: no transaction can begin in between.
  const whenFree = async <T>(statement: () => Promise<T>): Promise<T> => {
    while (open) await open;
    return statement();
  };
  return {
    dialect: 'sqlite',
    all: (sql, params) => (open ? whenFree(() => direct.all(sql, params)) : direct.all(sql, params)),
    run: (sql, params) => (open ? whenFree(() => direct.run(sql, params)) : direct.run(sql, params)),
    batch(statements) {
      return this.transaction((tx) => inOrder(tx, statements));
    },
    async transaction(work) {
      while (open) await open;
      let release!: () => void;
      open = new Promise((resolve) => { release = resolve; });
      try {
        // IMMEDIATE takes the write lock now: another process's transaction fails at once with SQLITE_BUSY
        // (and is tried again), instead of both reading and one failing at its first write.
        statement('BEGIN IMMEDIATE').run();
        try {
          const result = await work(direct);
          statement('COMMIT').run();
          return result;
        } catch (error) {
          statement('ROLLBACK').run();
          throw error;
        }
      } finally {
        open = undefined;
        release();
      }
    },
  };
}
