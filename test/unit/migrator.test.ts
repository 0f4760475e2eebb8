import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../migrations/index.js';
import { createDataSource } from '../../src/db/data-source.js';
import { migrate, migrator } from '../../src/db/migrate.js';

const dir = mkdtempSync(join(tmpdir(), 'migrator-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const database = { kind: 'sqlite', dir, statementTimeoutSeconds: 5 } as const;

describe('the migrations', () => {
  it('are given only to the DataSource that runs them, not to the one the requests use', () => {
    expect(createDataSource(database).options.migrations).toEqual([]);
    expect(migrator(database).options.migrations).toBe(MIGRATIONS);
  });

  it('refuse to run on a DataSource made without them, which would call a fresh database migrated', async () => {
    await expect(migrate(createDataSource(database))).rejects.toThrow('made without the migrations');
    const migrating = await migrator(database).initialize();
    try {
      expect(await migrate(migrating)).toEqual(MIGRATIONS.map((migration) => migration.name));
    } finally {
      await migrating.destroy();
    }
  });
});
