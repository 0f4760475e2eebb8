import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config.js';
import { createDataSource, SQLITE_FILE } from '../../src/db/data-source.js';
import { keepAlive } from '../../src/db/sqlite-lifetime.js';

/** Which store the contract tests of this vitest project run against. */
export const backend = process.env.TEST_BACKEND === 'mysql' ? 'mysql' : 'embedded';

export interface Store {
  /** The settings that point a server at this store. */
  readonly env: Record<string, string>;
  /** Runs SQL on the store behind the server's back (to break it, or to look). */
  exec(sql: string): Promise<void>;
  drop(): Promise<void>;
}

/** Another client of an embedded store's file, kept for the test process's life as the service keeps its own. */
export function openSqlite(file: string): Database.Database {
  const db = new Database(file);
  keepAlive(db);
  return db;
}

/** A store of its own for one server: a fresh SQLite directory, or a fresh MySQL database. */
export async function freshStore(): Promise<Store> {
  if (backend === 'embedded') {
    const dir = mkdtempSync(join(tmpdir(), 'animal-store-test-'));
    return {
      env: { DATA_DIR: dir },
      async exec(sql) {
        const db = openSqlite(join(dir, SQLITE_FILE));
        try { db.exec(sql); } finally { db.close(); }
      },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const base = new URL(process.env.TEST_DATABASE_URL!);
  const name = `${base.pathname.slice(1) || 'animal_store_test'}_${randomBytes(4).toString('hex')}`;
  const server = new URL(base);
  server.pathname = '/';
  const admin = await createConnection({ uri: server.toString() });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    async exec(sql) {
      await admin.query(`USE \`${name}\``);
      await admin.query(sql);
    },
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.end();
    },
  };
}

/** A connection of the test's own to a store, behind its server's back (to look, or to act as an admin): destroy() it. */
export function openStore(store: Store): Promise<DataSource> {
  return createDataSource(loadConfig(store.env).database).initialize();
}

/** A key on a store that a server (perhaps another process) uses (restricted to `scopes`, when given): its Authorization header. */
export async function keyOn(
  store: Store, plan = 'enterprise', limits: { perMinute?: number; perDay?: number } = { perMinute: 100_000, perDay: 100_000 }, scopes?: string,
) {
  const { createKey } = await import('../../src/auth/key-admin.js');
  const { apiKeyStore } = await import('../../src/db/api-keys.js');
  const dataSource = await openStore(store);
  try {
    const { key } = await createKey(apiKeyStore(dataSource), { plan, ...limits, ...(scopes !== undefined ? { scopes } : {}) });
    return { authorization: `Bearer ${key}` };
  } finally {
    await dataSource.destroy();
  }
}
