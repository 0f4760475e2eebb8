import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../migrations/index.js';
import type { DatabaseConfig } from '../config.js';
import { ApiKeyEntity } from './api-key.entity.js';
import { PetEntity } from './pet.entity.js';

export const SQLITE_FILE = 'animal-store.sqlite';

/** Builds, without connecting, the one DataSource for either backend: everything above it is the same code. */
export function createDataSource(database: DatabaseConfig): DataSource {
  const common = {
    entities: [PetEntity, ApiKeyEntity],
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    logging: false,
  };
  const options: DataSourceOptions = database.kind === 'mysql'
    ? {
      ...common,
      type: 'mysql',
      url: database.url,
      charset: 'utf8mb4_unicode_ci',
      timezone: 'Z',
      // Fail fast when the server is gone, so clients get a 503 instead of a hung request.
      connectTimeout: 5_000,
      poolSize: 10,
    }
    : {
      ...common,
      type: 'better-sqlite3',
      database: sqliteFile(database.dir),
      // WAL lets the keys command write while the server reads; the timeout waits out a writer.
      enableWAL: true,
      timeout: 5_000,
    };
  return new DataSource(options);
}

export function sqliteFile(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return join(dir, SQLITE_FILE);
}

export function describeDatabase(database: DatabaseConfig): string {
  if (database.kind === 'sqlite') return `SQLite at ${join(database.dir, SQLITE_FILE)}`;
  const url = new URL(database.url);
  return `MySQL at ${url.host}${url.pathname}`;
}
