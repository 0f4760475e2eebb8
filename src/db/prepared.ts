import type { Database, Statement as SqliteStatement } from 'better-sqlite3';
import type { Pool, PoolConnection } from 'mysql2';
import type { DataSource } from 'typeorm';
import { positionOf } from './positions.js';

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
  readonly dialect: 'mysql' | 'sqlite';
  /**
   * Runs `work` in one transaction, on one connection, holding the write locks it takes until the end:
   * committed when it resolves, rolled back when it throws. Rows read with `FOR_UPDATE[dialect]` stay
   * locked for it (SQLite locks the whole database for the transaction instead). `committed` hears the
   * position the COMMIT left, when the server tracks it.
   */
  transaction<T>(work: (tx: Statements) => Promise<T>, committed?: (position: string | undefined) => void): Promise<T>;
  /**
   * Runs fixed statements, in order, as one transaction in one round trip where the driver can (on MySQL
   * one multi-statement query: START TRANSACTION, the statements, COMMIT). Each statement's result in
   * order: rows for a SELECT, what it did for the others. Nothing is committed when one fails.
   */
  batch(statements: readonly Statement[], committed?: (position: string | undefined) => void): Promise<(Row[] | Written)[]>;
}

/** One statement of a batch: its SQL and its parameters. */
export type Statement = readonly [sql: string, params: readonly unknown[]];

const isSelect = (sql: string) => /^\s*select\b/i.test(sql);

/** A locking read, by dialect: SQLite has none, and needs none (a writing transaction excludes others). */
export const FOR_UPDATE = { mysql: ' FOR UPDATE', sqlite: '' } as const;

/**
 * The API's queries skip TypeORM's query building and entity hydration: the SQL is fixed, so it is a
 * prepared statement (mysql2 keeps one per connection; better-sqlite3's are kept here), and rows come
 * back as plain objects. Everything else (migrations, keys) still goes through TypeORM.
 */
export function prepared(dataSource: DataSource): Prepared {
  let found = byDataSource.get(dataSource);
  if (!found) byDataSource.set(dataSource, found = create(dataSource));
  return found;
}

/** One per data source, shared by every store: SQLite's one connection has one transaction lock. */
const byDataSource = new WeakMap<DataSource, Prepared>();

function create(dataSource: DataSource): Prepared {
  const run = dataSource.options.type === 'mysql' ? mysql(dataSource) : sqlite(dataSource);
  // Query logging, when configured, sees these queries as it sees TypeORM's; decided once, not per query.
  if (!dataSource.options.logging) return run;
  const logged = (statements: Statements): Statements => ({
    all: (sql, params) => { dataSource.logger.logQuery(sql, params as unknown[]); return statements.all(sql, params); },
    run: (sql, params) => { dataSource.logger.logQuery(sql, params as unknown[]); return statements.run(sql, params); },
  });
  return {
    ...run, ...logged(run),
    transaction: (work, committed) => run.transaction((tx) => work(logged(tx)), committed),
    // One query as the server sees it on MySQL: logged once.
    batch: (statements, committed) => {
      dataSource.logger.logQuery(statements.map(([sql]) => sql).join(';\n'), statements.flatMap(([, params]) => params) as unknown[]);
      return run.batch(statements, committed);
    },
  };
}

function mysql(dataSource: DataSource): Prepared {
  const pool = (dataSource.driver as unknown as { pool: Pool }).pool;
  const on = (target: Pool | PoolConnection): Statements => {
    const execute = <T>(sql: string, params: readonly unknown[]) => new Promise<T>((resolve, reject) => {
      target.execute(sql, params as never, (error, result) => (error ? reject(error) : resolve(result as T)));
    });
    return {
      all: (sql, params) => execute<Row[]>(sql, params),
      run: async (sql, params) => {
        const result = await execute<{ insertId: number; affectedRows: number }>(sql, params);
        return { insertId: Number(result.insertId), affectedRows: result.affectedRows, position: positionOf(result) };
      },
    };
  };
  const command = (connection: PoolConnection, sql: string, params: readonly unknown[] = []) => new Promise<unknown>((resolve, reject) => {
    connection.query(sql, params as never, (error, result) => (error ? reject(error) : resolve(result)));
  });
  const connect = () => new Promise<PoolConnection>((resolve, reject) => {
    pool.getConnection((error, c) => (error ? reject(error) : resolve(c)));
  });
  const written = (result: unknown): Row[] | Written => {
    if (Array.isArray(result)) return result as Row[];
    const { insertId, affectedRows } = result as { insertId: number; affectedRows: number };
    return { insertId: Number(insertId), affectedRows };
  };
  return {
    dialect: 'mysql',
    ...on(pool),
    async batch(statements, committed) {
      const connection = await connect();
      try {
        // The pool's connections allow several statements in one query (data-source.ts): the SQL here is
        // fixed text, its values escaped by the driver.
        const text = ['START TRANSACTION', ...statements.map(([sql]) => sql), 'COMMIT'].join(';\n');
        const results = await command(connection, text, statements.flatMap(([, params]) => params)) as unknown[];
        committed?.(positionOf(results[results.length - 1]));
        return results.slice(1, -1).map(written);
      } catch (error) {
        await command(connection, 'ROLLBACK').catch(() => connection.destroy());
        throw error;
      } finally {
        connection.release();
      }
    },
    async transaction(work, committed) {
      const connection = await connect();
      try {
        await command(connection, 'START TRANSACTION');
        const result = await work(on(connection));
        const commit = await command(connection, 'COMMIT');
        committed?.(positionOf(commit));
        return result;
      } catch (error) {
        // A connection that cannot even roll back is broken: it leaves the pool instead of going back.
        await command(connection, 'ROLLBACK').catch(() => connection.destroy());
        throw error;
      } finally {
        connection.release();
      }
    },
  };
}

function sqlite(dataSource: DataSource): Prepared {
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
      return this.transaction(async (tx) => {
        const results: (Row[] | Written)[] = [];
        for (const [sql, params] of statements) results.push(await (isSelect(sql) ? tx.all(sql, params) : tx.run(sql, params)));
        return results;
      });
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
