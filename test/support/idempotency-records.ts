import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll } from 'vitest';
import { backend, openStore } from './backend.js';
import { startServer, type TestServer } from './server.js';

/** Where a server keeps its Idempotency-Key records: Redis when it has one, else its database (both on MySQL). */
export const RECORD_STORES: [where: string, env: Record<string, string>][] = backend === 'mysql'
  ? [['Redis', {}], ['the database', { REDIS_URL: '' }]]
  : [['the database', {}]];

/** A server with its records in `where`, and what a test reads of them behind its back; filled in beforeAll. */
export interface RecordsUnderTest {
  api: TestServer;
  db: DataSource;
  redis: Redis | undefined;
  owner: { id: number; auth: Record<string, string> };
  /** The record's id for this Idempotency-Key of the owner, as the service names it. */
  recordId(given: string): string;
  /** Its Redis key. */
  redisKey(given: string): string;
}

/** Starts a server (its settings `env`) with a key of its own, a connection to its store and, when its records are there, to Redis. */
export function recordsUnderTest(where: string, env: Record<string, string>): RecordsUnderTest {
  const under = {
    recordId: (given: string) => createHash('sha256').update(`${under.owner.id}\n${given}`).digest('hex'),
    redisKey: (given: string) => `${under.api.config.redisPrefix}:idempotency:${under.recordId(given)}`,
  } as RecordsUnderTest;
  beforeAll(async () => {
    under.api = await startServer({ env });
    under.db = await openStore(under.api.store);
    under.redis = where === 'Redis' ? new Redis(process.env.TEST_REDIS_URL!) : undefined;
    under.owner = await under.api.newKey('pro');
  });
  afterAll(async () => {
    under.redis?.disconnect();
    await under.db?.destroy();
    await under.api?.close();
  });
  return under;
}
