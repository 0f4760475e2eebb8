import type { Clock } from '../clock.js';
import type { Closers } from '../closers.js';
import type { Config } from '../config.js';
import { apiKeyStore } from '../db/api-keys.js';
import { createDataSource } from '../db/data-source.js';
import { orderStore } from '../db/orders.js';
import { petStore } from '../db/pets.js';
import { prepared } from '../db/prepared.js';
import { tokenSubjectStore } from '../db/token-subjects.js';
import { createReplicas } from '../db/replicas.js';
import { log } from '../log.js';
import { connectRedis } from '../redis/connection.js';

/**
 * Where the service keeps things, opened (each pushed onto `closers`) and ready: the database, migrated
 * first; Redis, given a moment to connect; the read replicas, their state read once; and the stores the
 * requests use over them.
 */
export async function openStores(config: Config, clock: Clock, closers: Closers) {
  // The migrations' code is loaded here, on the path that runs them, and nowhere else: the requests'
  // DataSource is made without it.
  const { migrate, migrator } = await import('../db/migrate.js');
  const migrating = await migrator(config.database).initialize();
  try {
    const ran = await migrate(migrating);
    if (ran.length > 0) log.info({ migrations: ran }, 'database migrated');
  } finally {
    await migrating.destroy();
  }
  const dataSource = await createDataSource(config.database).initialize();
  closers.push('the database', () => dataSource.destroy());
  const redis = config.redis ? connectRedis(config.redis) : undefined;
  if (redis) closers.push('Redis', () => redis.close());
  // Requests before the connection is up would be counted in memory only: give Redis a moment.
  await redis?.ready(2_000);

  const replicaConfig = config.database.kind === 'mysql' ? config.database.replicas : undefined;
  const replicas = replicaConfig && createReplicas(replicaConfig, config.database.statementTimeoutSeconds);
  if (replicas) closers.push('the read replicas', () => replicas.close());
  // Reads go to a replica only once its state is known: the first check is waited for.
  await replicas?.refresh();

  const petsOn = petStore(dataSource, clock);
  const ordersOn = orderStore(dataSource, clock);
  return {
    dataSource, redis, replicas, replicaConfig,
    /** The primary's fixed statements, taken once: every store, the pruning and the read sessions share them. */
    statements: prepared(dataSource),
    keys: apiKeyStore(dataSource),
    tokenSubjects: tokenSubjectStore(dataSource),
    /** The stores on given statements (a request's session or fence), and on the primary's own. */
    petsOn, ordersOn, pets: petsOn(), orders: ordersOn(),
  };
}

export type Stores = Awaited<ReturnType<typeof openStores>>;
