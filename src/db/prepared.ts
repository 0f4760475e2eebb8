import type { DataSource } from 'typeorm';
import { mysql } from './mysql-statements.js';
import { sqlite } from './sqlite-statements.js';
import type { Prepared, Statements } from './statements.js';

export type { Prepared, Row, Statement, Statements, Written } from './statements.js';

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

