import type { Logger } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { apiKeyStore } from '../../src/db/api-keys.js';
import { createDataSource } from '../../src/db/data-source.js';
import { migrate } from '../../src/db/migrate.js';
import { petStore } from '../../src/db/pets.js';
import { freshStore, type Store } from '../support/backend.js';

const queries: string[] = [];
const collect: Logger = {
  logQuery: (query) => { queries.push(query); },
  logQueryError: () => {}, logQuerySlow: () => {}, logSchemaBuild: () => {}, logMigration: () => {}, log: () => {},
};

let store: Store;
const dataSource = async () => {
  const ds = createDataSource(loadConfig(store.env).database);
  ds.setOptions({ logging: ['query'], logger: collect });
  await ds.initialize();
  await migrate(ds);
  return ds;
};
let ds: Awaited<ReturnType<typeof dataSource>>;
beforeAll(async () => {
  store = await freshStore();
  ds = await dataSource();
});
afterAll(async () => {
  await ds?.destroy();
  await store?.drop();
});

describe('database round trips', () => {
  const pets = () => petStore(ds);
  it.each([
    ['creating a pet', () => pets().create({ name: 'One trip', categoryId: 1, status: 'available' })],
    ['listing pets', () => pets().list({ limit: 20 })],
    ['listing pets by status', () => pets().list({ limit: 20, status: 'sold' })],
    ['getting a pet', () => pets().get(1)],
    ['looking up a key', () => apiKeyStore(ds).findByHash('0'.repeat(64))],
  ])('%s takes one query', async (_case, operation) => {
    queries.length = 0;
    await operation();
    expect(queries).toHaveLength(1);
  });
});
