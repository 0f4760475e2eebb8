import mysql2, { type Pool, type PoolConnection, type PoolOptions } from 'mysql2';

/**
 * What every new connection runs before its first query (a connection runs its commands in order): a
 * statement, or a wait for a lock, ends with an error after `seconds` instead of holding a request.
 * MariaDB names the bound max_statement_time (seconds), MySQL max_execution_time (milliseconds, SELECTs
 * only); each server ignores the other's by failing it. `more`: statements of the caller's own. The
 * seconds are the checked setting's integer, written as digits: a setting, never a request's value (and
 * MySQL takes no bound parameter of mysql2's, which sends numbers as DOUBLE, for an integer variable).
 */
export function sessionStatements(seconds: number, more: readonly string[] = []): readonly string[] {
  const whole = Math.trunc(seconds);
  return [
    `SET SESSION innodb_lock_wait_timeout = ${whole}, lock_wait_timeout = ${whole}`,
    `SET SESSION max_statement_time = ${whole}`,
    `SET SESSION max_execution_time = ${whole * 1000}`,
    ...more,
  ];
}

/**
 * mysql2 puts a query's values inside its text, escaped for a server that reads backslashes as escapes:
 * under NO_BACKSLASH_ESCAPES the backslash before a quote is a character and the quote ends the string,
 * so a value could end its statement and write its own. No text of ours is built that way: a query
 * given values is sent as a prepared statement with the values bound (TypeORM's queries, migrations'
 * and keys' among them), and formatting values into text is refused outright.
 */
function bindValues(connection: PoolConnection): void {
  const text = connection.query.bind(connection) as (...args: unknown[]) => unknown;
  const bound = connection.execute.bind(connection) as (...args: unknown[]) => unknown;
  (connection as { query: unknown }).query = (sql: unknown, values?: unknown, callback?: unknown) =>
    (Array.isArray(values) && values.length > 0 ? bound(sql, values, callback) : text(sql, values, callback));
}

/** mysql2's formatter, replaced: a value that would still reach one fails instead of being escaped into text. */
function refuseValues(sql: string, values: unknown): string {
  if (values !== undefined && values !== null && !(Array.isArray(values) && values.length === 0)) {
    throw new Error('Values are bound as parameters of a prepared statement, never escaped into SQL text');
  }
  return sql;
}

/**
 * How many prepared statements each connection keeps (the least recently used is closed past it), and
 * how many row parsers mysql2 keeps for all of them. Its defaults, 16,000 and 15,000, are slots its LRU
 * allocates up front: four arrays of that length, 0.5 MB per connection (5 MB for a pool of ten, as many
 * per replica) and 0.47 MB for the parsers, where the service's texts and row shapes number in the
 * hundreds (fixed statements, id lists of 1 to 100, the pruning's last batch).
 */
const PREPARED_PER_CONNECTION = 1_024;
const ROW_PARSERS = 1_024;

/** A mysql2 pool whose every new connection binds its values and runs `session` first. */
export function createSessionPool(options: PoolOptions, session: readonly string[]): Pool {
  mysql2.setMaxParserCache(ROW_PARSERS);
  const pool = mysql2.createPool({
    ...options, multipleStatements: false, queryFormat: refuseValues, maxPreparedStatements: PREPARED_PER_CONNECTION,
  });
  pool.on('connection', (connection) => {
    bindValues(connection);
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
