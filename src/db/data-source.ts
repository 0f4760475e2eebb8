import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config.js';
import { ApiKeyEntity } from './api-key.entity.js';
import { setDeadline } from './deadline.js';
import { sessionMysql2, sessionStatements } from './mysql-session.js';
import { TRACK_POSITIONS } from './positions.js';
import { keepAlive } from './sqlite-lifetime.js';

export const SQLITE_FILE = 'animal-store.sqlite';

/** How the service talks to MySQL, on the primary (through TypeORM) and each replica alike: one shape of row. */
export const MYSQL_CONNECTION = {
  charset: 'utf8mb4_unicode_ci',
  timezone: 'Z',
  // Fail fast when the server is gone, so clients get a 503 instead of a hung request.
  connectTimeout: 5_000,
  // BIGINT comes back as a number when it is a safe integer (every id is). As a string (TypeORM's
  // default), mysql2 builds each through a 64-bit Long and a division: 12 KB and the CPU to make it
  // on every page of 20 pets.
  supportBigNumbers: true,
  bigNumberStrings: false,
} as const;

/** Connections per pool: the primary's, and each replica's. */
export const POOL_SIZE = 10;

export interface DataSourceUse {
  /** It runs the migrations: its statements have no deadline, and no session set-up of the requests'. */
  readonly forMigrations?: boolean;
  /**
   * The migrations it may run (db/migrate.ts gives them): without them, as the DataSource the requests use
   * is made, none of the migrations' code is loaded.
   */
  readonly migrations?: DataSourceOptions['migrations'];
}

/**
 * Builds, without connecting, the one DataSource for either backend: everything above it is the same code.
 * Its statements are bounded by the statement timeout, except a migration's (DDL on a large table, or
 * waiting for another instance's migrations, takes as long as it takes).
 */
export function createDataSource(database: DatabaseConfig, { forMigrations = false, migrations = [] }: DataSourceUse = {}): DataSource {
  const common = {
    entities: [ApiKeyEntity],
    migrations,
    migrationsTableName: 'migrations',
    synchronize: false,
    logging: false,
  };
  const options: DataSourceOptions = database.kind === 'mysql'
    ? {
      ...common,
      type: 'mysql',
      url: database.url,
      ...MYSQL_CONNECTION,
      poolSize: POOL_SIZE,
      // One statement per query, and values only as bound parameters (mysql-session.ts): no input can
      // end a statement, and none can add one. With replicas, the primary reports each write's position:
      // a key's next reads wait for it there.
      multipleStatements: false,
      driver: sessionMysql2(forMigrations ? [] : sessionStatements(database.statementTimeoutSeconds, database.replicas ? TRACK_POSITIONS : [])),
    }
    : {
      ...common,
      type: 'better-sqlite3',
      database: sqliteFile(database.dir),
      // WAL lets the keys command write while the server reads. SQLite's own wait for a writer's lock
      // blocks the event loop (the driver is synchronous), so a busy file fails at once and the call is
      // tried again a little later, without blocking (see deadline.ts).
      enableWAL: true,
      timeout: forMigrations ? 60_000 : 0,
      prepareDatabase: keepAlive,
      // Statements are kept for the life of the process (sqlite-lifetime.ts): one TypeORM evicted would be
      // prepared again, and kept again. Its texts are the service's constants, so the cache stays small.
      statementCacheSize: Number.MAX_SAFE_INTEGER,
    };
  const dataSource = new DataSource(options);
  if (!forMigrations) setDeadline(dataSource, database.statementTimeoutSeconds, database.kind === 'sqlite');
  return dataSource;
}

export function sqliteFile(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return join(dir, SQLITE_FILE);
}

export function describeDatabase(database: DatabaseConfig): string {
  if (database.kind === 'sqlite') return `SQLite at ${join(database.dir, SQLITE_FILE)}`;
  const url = new URL(database.url);
  const replicas = database.replicas?.urls.map((item) => new URL(item).host);
  return `MySQL at ${url.host}${url.pathname}${replicas ? `, reads also on ${replicas.length === 1 ? 'a replica' : `${replicas.length} replicas`} (${replicas.join(', ')})` : ''}`;
}
