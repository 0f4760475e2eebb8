import type { Database, Statement as SqliteStatement } from 'better-sqlite3';
import type { Pool, PoolConnection } from 'mysql2';
import type { DataSource } from 'typeorm';
import type { Dialect } from './dialect.js';
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

const isSelect = (sql: string) => /^\s*select\b/i.test(sql);


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
    // One query as the server sees it on MariaDB: logged once.
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
  // Statements without values (transaction control) go as text: there is nothing in them to bind.
  const command = (connection: PoolConnection, sql: string) => new Promise<unknown>((resolve, reject) => {
    connection.query(sql, (error, result) => (error ? reject(error) : resolve(result)));
  });
  const connect = () => new Promise<PoolConnection>((resolve, reject) => {
    pool.getConnection((error, c) => (error ? reject(error) : resolve(c)));
  });
  /** `work` on a connection of its own: what it leaves open is rolled back when it throws. */
  const held = async <T>(work: (connection: PoolConnection) => Promise<T>): Promise<T> => {
    const connection = await connect();
    try {
      return await work(connection);
    } catch (error) {
      // A connection that cannot even roll back is broken: it leaves the pool instead of going back.
      await command(connection, 'ROLLBACK').catch(() => connection.destroy());
      throw error;
    } finally {
      connection.release();
    }
  };
  const inTransaction = async <T>(connection: PoolConnection, work: (tx: Statements) => Promise<T>, committed?: (position: string | undefined) => void) => {
    await command(connection, 'START TRANSACTION');
    const result = await work(on(connection));
    const commit = await command(connection, 'COMMIT');
    committed?.(positionOf(commit));
    return result;
  };
  return {
    dialect: 'mysql',
    ...on(pool),
    batch: (statements, committed) => held(async (connection) => {
      if (!isMariadb(connection)) return inTransaction(connection, (tx) => inOrder(tx, statements), committed);
      // MariaDB runs the whole transaction as one prepared statement: one round trip, every value bound.
      const results = await new Promise<unknown[]>((resolve, reject) => {
        connection.execute(compound(statements), statements.flatMap(([, params]) => params) as never,
          (error, result) => (error ? reject(error) : resolve(result as unknown[])));
      });
      committed?.(positionOf(results[results.length - 1]));
      return statements.map(([sql], i) => (isSelect(sql) ? results[i] as Row[] : writtenBy((results[i] as Row[])[0]!)));
    }),
    transaction: (work, committed) => held((connection) => inTransaction(connection, work, committed)),
  };
}

/** mysql2 tells MariaDB from MySQL by the server's greeting, as it does for the protocol's differences. */
const isMariadb = (connection: PoolConnection) => (connection as unknown as { _isMariaDB?: boolean })._isMariaDB === true;

/** Fixed statements one after the other, each prepared, on one transaction's statements. */
async function inOrder(tx: Statements, statements: readonly Statement[]): Promise<(Row[] | Written)[]> {
  const results: (Row[] | Written)[] = [];
  for (const [sql, params] of statements) results.push(await (isSelect(sql) ? tx.all(sql, params) : tx.run(sql, params)));
  return results;
}

/**
 * A batch as one MariaDB anonymous compound statement, prepared like any other: the transaction, each
 * statement, and after each write a row saying what it did (ROW_COUNT() and LAST_INSERT_ID() read the
 * write before them, and leave LAST_INSERT_ID() for the next statement). Each statement then answers
 * one result set, in order. The text is made of the batch's fixed statements: mysql2 keeps it prepared.
 */
const compound = (statements: readonly Statement[]) => `BEGIN NOT ATOMIC START TRANSACTION; ${statements
  .map(([sql]) => (isSelect(sql) ? sql : `${sql}; SELECT ROW_COUNT() AS affectedRows, LAST_INSERT_ID() AS insertId`))
  .join('; ')}; COMMIT; END`;

const writtenBy = (row: Row): Written => ({ insertId: Number(row.insertId), affectedRows: Number(row.affectedRows) });

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
