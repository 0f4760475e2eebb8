import type { DataSource } from 'typeorm';
import { openStore, type Store } from './backend.js';

/** Counts the rows of pets behind the server's back: what a request really wrote. */
export async function petCounter(store: Store): Promise<{ count(): Promise<number>; close(): Promise<void> }> {
  const dataSource: DataSource = await openStore(store);
  return {
    count: async () => Number((await dataSource.query('SELECT COUNT(*) AS n FROM pets'))[0].n),
    close: () => dataSource.destroy(),
  };
}
