import type { Pool, PoolConnection } from 'mysql2';
import type { DataSource } from 'typeorm';
import { positionOf } from './positions.js';
import { inOrder, isSelect, type Prepared, type Row, type Statement, type Statements, type Written } from './statements.js';

/** The primary's pool as Prepared: each statement prepared per connection (mysql2 keeps them), values bound. */
export function mysql(dataSource: DataSource): Prepared {
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
