import type { Database, Statement } from 'better-sqlite3';
import type { Pool } from 'mysql2';
import type { DataSource } from 'typeorm';

export type Row = Record<string, unknown>;

/** Fixed SQL with parameters, run on the data source's own connections, returning plain rows. */
export interface Prepared {
  all(sql: string, params: readonly unknown[]): Promise<Row[]>;
  /** An INSERT: the id it generated. */
  insert(sql: string, params: readonly unknown[]): Promise<number>;
}

/**
 * The hot queries skip TypeORM's query building and entity hydration: the SQL is fixed, so it is a
 * prepared statement (mysql2 keeps one per connection; better-sqlite3's are kept here), and rows come
 * back as plain objects. Everything else (migrations, keys) still goes through TypeORM.
 */
export function prepared(dataSource: DataSource): Prepared {
  const run = driverOf(dataSource);
  // Query logging, when configured, sees these queries as it sees TypeORM's; decided once, not per query.
  if (!dataSource.options.logging) return run;
  const logged = (sql: string, params: readonly unknown[]) => dataSource.logger.logQuery(sql, params as unknown[]);
  return {
    all: (sql, params) => { logged(sql, params); return run.all(sql, params); },
    insert: (sql, params) => { logged(sql, params); return run.insert(sql, params); },
  };
}

function driverOf(dataSource: DataSource): Prepared {
  if (dataSource.options.type === 'mysql') {
    const pool = (dataSource.driver as unknown as { pool: Pool }).pool;
    const execute = <T>(sql: string, params: readonly unknown[]) => new Promise<T>((resolve, reject) => {
      pool.execute(sql, params as never, (error, result) => (error ? reject(error) : resolve(result as T)));
    });
    return {
      all: (sql, params) => execute<Row[]>(sql, params),
      insert: async (sql, params) => Number((await execute<{ insertId: number }>(sql, params)).insertId),
    };
  }
  const database = (dataSource.driver as unknown as { databaseConnection: Database }).databaseConnection;
  const statements = new Map<string, Statement>();
  const statement = (sql: string) => {
    let found = statements.get(sql);
    if (!found) statements.set(sql, found = database.prepare(sql));
    return found;
  };
  // better-sqlite3 is synchronous; a promise keeps one shape for callers, and a thrown error a rejection.
  return {
    all: async (sql, params) => statement(sql).all(...params) as Row[],
    insert: async (sql, params) => Number(statement(sql).run(...params).lastInsertRowid),
  };
}
