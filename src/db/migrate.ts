import type { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations/index.js';
import type { DatabaseConfig } from '../config.js';
import { createDataSource } from './data-source.js';

const LOCK = 'animal_store_migrations';
const LOCK_WAIT_SECONDS = 60;

/**
 * A DataSource, not yet connected, that runs the migrations: the only place their code is loaded from
 * (the service imports this module only on the path that migrates).
 */
export function migrator(database: DatabaseConfig): DataSource {
  return createDataSource(database, { forMigrations: true, migrations: MIGRATIONS });
}

/**
 * Runs pending migrations and refuses a database migrated by a newer build. On MySQL a named lock keeps
 * several instances starting at once from running the same DDL twice (MySQL DDL is not transactional).
 * Returns the names of the migrations it ran.
 */
export async function migrate(dataSource: DataSource): Promise<string[]> {
  // One made without them would find nothing to run, and call a fresh database migrated.
  if (dataSource.migrations.length !== MIGRATIONS.length) throw new Error('This DataSource was made without the migrations: use migrator()');
  const mysql = dataSource.options.type === 'mysql';
  const runner = dataSource.createQueryRunner();
  try {
    if (mysql) {
      const [row] = await runner.query('SELECT GET_LOCK(?, ?) AS locked', [LOCK, LOCK_WAIT_SECONDS]);
      if (Number(row?.locked) !== 1) throw new Error(`Timed out after ${LOCK_WAIT_SECONDS}s waiting for another instance's migrations`);
    }
    const ran = await dataSource.runMigrations({ transaction: 'each' });
    await refuseNewerDatabase(dataSource);
    return ran.map((m) => m.name);
  } finally {
    if (mysql) await runner.query('SELECT RELEASE_LOCK(?)', [LOCK]).catch(() => undefined);
    await runner.release();
  }
}

async function refuseNewerDatabase(dataSource: DataSource): Promise<void> {
  const known = new Set(MIGRATIONS.map((m) => m.name));
  const applied: { name: string }[] = await dataSource.query(
    `SELECT name FROM ${dataSource.driver.escape(dataSource.options.migrationsTableName ?? 'migrations')}`,
  );
  const unknown = applied.map((row) => row.name).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `The database is newer than this build: it has run migrations this code does not know (${unknown.join(', ')}). ` +
      'Deploy the newer build, or restore a matching database.',
    );
  }
}
