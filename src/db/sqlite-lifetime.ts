import { createRequire } from 'node:module';
import type { Database } from 'better-sqlite3';

/**
 * Node 24.19 to 24.21 (the newest at this writing) abort the whole process when the garbage collector
 * frees an addon object built on node::ObjectWrap at a moment when no JavaScript runs (nodejs/node#65446),
 * and better-sqlite3 before 13 (13 needs Node 22) builds its databases and statements on it. A dropped
 * statement is then a crash waiting for a collection. So none is ever dropped: every database and every
 * statement one prepares, a pragma's included, stays reachable for the life of the process. That costs
 * little: the service's SQL texts are constants, each prepared once per database (prepared.ts and
 * TypeORM's cache hold them anyway), and a database's close finalizes its statements, leaving objects of a
 * few hundred bytes.
 */
const kept: object[] = [];
let preparing = false;

export function keepAlive(database: Database): void {
  kept.push(database);
  if (preparing) return;
  // pragma() calls the native prepare directly, so the hook is on the native class, shared by every database.
  const { cppdb } = createRequire(import.meta.url)('better-sqlite3/lib/util.js') as { cppdb: symbol };
  const native = Object.getPrototypeOf((database as unknown as Record<symbol, object>)[cppdb]) as {
    prepare: (...args: unknown[]) => object;
  };
  const prepare = native.prepare;
  native.prepare = function prepareKept(this: unknown, ...args: unknown[]) {
    const statement = prepare.apply(this, args);
    kept.push(statement);
    return statement;
  };
  preparing = true;
}
