/** `npm run migrate`: the migrations the server runs at startup, run on their own. */
import { ConfigError, loadConfig } from '../config.js';
import { describeDatabase } from '../db/data-source.js';
import { migrate, migrator } from '../db/migrate.js';

try {
  const config = loadConfig();
  const dataSource = await migrator(config.database).initialize();
  try {
    const ran = await migrate(dataSource);
    console.log(`${describeDatabase(config.database)}: ${ran.length ? `ran ${ran.join(', ')}` : 'up to date'}`);
  } finally {
    await dataSource.destroy();
  }
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : `Migration failed: ${(error as Error).message}`);
  process.exit(1);
}
