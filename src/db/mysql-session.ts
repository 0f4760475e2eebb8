import mysql2 from 'mysql2';

/**
 * mysql2 as TypeORM's driver, with every new connection of the pool bounded before its first query
 * (the connection runs its commands in order): a statement, or a wait for a lock, ends with an error
 * after `seconds` instead of holding a request. MariaDB names the bound max_statement_time (seconds),
 * MySQL max_execution_time (milliseconds, SELECTs only); each server ignores the other's by failing it.
 */
export function boundedMysql2(seconds: number): typeof mysql2 {
  const session = [
    `SET SESSION innodb_lock_wait_timeout = ${seconds}, lock_wait_timeout = ${seconds}`,
    `SET SESSION max_statement_time = ${seconds}`,
    `SET SESSION max_execution_time = ${seconds * 1000}`,
  ];
  return {
    ...mysql2,
    createPool(options: Parameters<typeof mysql2.createPool>[0]) {
      const pool = mysql2.createPool(options as never);
      pool.on('connection', (connection) => {
        for (const sql of session) connection.query(sql, () => undefined);
      });
      return pool;
    },
  } as typeof mysql2;
}
