import mysql2, { type Pool, type PoolOptions } from 'mysql2';

/**
 * What every new connection runs before its first query (a connection runs its commands in order): a
 * statement, or a wait for a lock, ends with an error after `seconds` instead of holding a request.
 * MariaDB names the bound max_statement_time (seconds), MySQL max_execution_time (milliseconds, SELECTs
 * only); each server ignores the other's by failing it. `more`: statements of the caller's own.
 */
export function sessionStatements(seconds: number, more: readonly string[] = []): readonly string[] {
  return [
    `SET SESSION innodb_lock_wait_timeout = ${seconds}, lock_wait_timeout = ${seconds}`,
    `SET SESSION max_statement_time = ${seconds}`,
    `SET SESSION max_execution_time = ${seconds * 1000}`,
    ...more,
  ];
}

/** A mysql2 pool whose every new connection runs `session` first. */
export function createSessionPool(options: PoolOptions, session: readonly string[]): Pool {
  const pool = mysql2.createPool(options);
  pool.on('connection', (connection) => {
    for (const sql of session) connection.query(sql, () => undefined);
  });
  return pool;
}

/** mysql2 as TypeORM's driver, its pool's connections set up by `session`. */
export function sessionMysql2(session: readonly string[]): typeof mysql2 {
  return {
    ...mysql2,
    createPool: (options: PoolOptions) => createSessionPool(options, session),
  } as typeof mysql2;
}
