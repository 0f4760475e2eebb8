import type { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config.js';
import { createDataSource } from '../../src/db/data-source.js';
import type { Store } from './backend.js';

/** Counts the rows of pets behind the server's back: what a request really wrote. */
export async function petCounter(store: Store): Promise<{ count(): Promise<number>; close(): Promise<void> }> {
  const dataSource: DataSource = await createDataSource(loadConfig(store.env).database).initialize();
  return {
    count: async () => Number((await dataSource.query('SELECT COUNT(*) AS n FROM pets'))[0].n),
    close: () => dataSource.destroy(),
  };
}
