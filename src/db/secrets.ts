import type { DataSource } from 'typeorm';

/** A secret the deployment shares (made by a migration), read once at startup. */
export async function loadSecret(dataSource: DataSource, name: string): Promise<string> {
  const [row] = await dataSource.query('SELECT value FROM service_secrets WHERE name = ?', [name]) as { value?: string }[];
  if (!row?.value) throw new Error(`The database has no "${name}" secret: run the migrations (npm run migrate)`);
  return row.value;
}
