/**
 * `node --expose-gc --import tsx test/support/sqlite-churn.ts keep|drop`: opens databases and prepares statements (a
 * pragma's too) by the thousand, each used once and dropped, as a long-running service and a test process
 * do over time; with `keep`, through keepAlive as the service does. Exits 0 if the process survives that.
 * It ends with a full collection, so whether the dropped objects are freed before the process ends does not
 * depend on when the collector happened to run (without it, an affected Node survived the dropped churn
 * about one run in four).
 */
import Database from 'better-sqlite3';
import { keepAlive } from '../../src/db/sqlite-lifetime.js';

const keep = process.argv[2] === 'keep';
for (let i = 0; i < 2_000; i++) {
  const db = new Database(':memory:');
  if (keep) keepAlive(db);
  for (let j = 0; j < 10; j++) db.prepare(`SELECT ${i * 10 + j} AS n`).get();
  db.pragma('user_version');
  db.close();
}
(globalThis as { gc?: () => void }).gc!();
