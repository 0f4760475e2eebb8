import type { Logger } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { apiKeyStore } from '../../src/db/api-keys.js';
import { createDataSource } from '../../src/db/data-source.js';
import { migrate, migrator } from '../../src/db/migrate.js';
import { orderStore } from '../../src/db/orders.js';
import { petStore } from '../../src/db/pets.js';
import { execute, parse } from 'graphql';
import { schema } from '../../src/schema/index.js';
import { Loaders } from '../../src/schema/loaders.js';
import { systemClock } from '../../src/clock.js';
import { createCursors } from '../../src/domain/cursor.js';
import { freshStore, type Store } from '../support/backend.js';

const queries: string[] = [];
const collect: Logger = {
  logQuery: (query) => { queries.push(query); },
  logQueryError: () => {}, logQuerySlow: () => {}, logSchemaBuild: () => {}, logMigration: () => {}, log: () => {},
};

let store: Store;
const dataSource = async () => {
  const { database } = loadConfig(store.env);
  const migrating = await migrator(database).initialize();
  await migrate(migrating);
  await migrating.destroy();
  const ds = createDataSource(database);
  ds.setOptions({ logging: ['query'], logger: collect });
  return ds.initialize();
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
  const pets = () => petStore(ds, systemClock)();
  it.each([
    ['creating a pet', () => pets().create({ name: 'One trip', categoryId: 1, status: 'available' })],
    ['listing pets', () => pets().list({ limit: 20 })],
    ['listing pets by status', () => pets().list({ limit: 20, status: 'sold' })],
    ['getting a pet', () => pets().get(1)],
    ['listing orders', () => orderStore(ds, systemClock)().list({ limit: 20 })],
    ['getting an order', () => orderStore(ds, systemClock)().get(1)],
    ['looking up a key', () => apiKeyStore(ds).findByHash('0'.repeat(64))],
  ])('%s takes one query', async (_case, operation) => {
    queries.length = 0;
    await operation();
    expect(queries).toHaveLength(1);
  });
});

describe('nested fields over GraphQL', () => {
  it('take one query per level of the response, however many items each level has', async () => {
    const pets = petStore(ds, systemClock)();
    const orders = orderStore(ds, systemClock)();
    for (let i = 0; i < 12; i += 1) {
      const pet = await pets.create({ name: `Nested ${i}`, categoryId: 1, status: 'available' });
      const { order } = await orders.place({ petId: pet.id });
      if (i % 2) await orders.update(order.id, 'cancelled');
    }
    const events = { changed() {}, pets: () => { throw new Error('unused'); }, orders: () => { throw new Error('unused'); } };
    const run = async (query: string) => {
      queries.length = 0;
      const result = await execute({ schema, document: parse(query), contextValue: { pets, orders, events, cursors: createCursors('secret'), loaders: new Loaders(pets, orders) } });
      expect(result.errors).toBeUndefined();
      return queries.length;
    };
    // orders → their pets (one batch) → those pets' orders (one batch) → their pets (one batch).
    expect(await run('{ orders(limit: 12) { id pet { id orders { id pet { name } } } } }')).toBe(4);
    expect(await run('{ pets(limit: 12) { id orders { id pet { id } } } }')).toBe(3);
  });
});
