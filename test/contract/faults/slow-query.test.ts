import { createConnection } from 'mysql2/promise';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE } from '../../../src/db/data-source.js';
import type { Step } from '../../../src/pipeline/pipeline.js';
import { backend, openSqlite } from '../../support/backend.js';
import { startServer, type TestServer } from '../../support/server.js';

/** The requests marked `x-held` that have reached the surfaces: their statements go to the database next. */
const held = new Set<string>();
const watchHeld: Step = {
  onRequest: ({ request }) => { const mark = request.headers.get('x-held'); if (mark) held.add(mark); },
};

let api: TestServer;
beforeAll(async () => { api = await startServer({ env: { STATEMENT_TIMEOUT_SECONDS: '2' }, steps: [watchHeld] }); });
afterAll(async () => { await api?.close(); });

/** Another client of the same database takes the write lock on pets and keeps it until released. */
async function holdWriteLock(): Promise<() => Promise<void>> {
  if (backend === 'embedded') {
    const db = openSqlite(join(api.store.env.DATA_DIR!, SQLITE_FILE));
    db.exec('BEGIN IMMEDIATE');
    return async () => { db.exec('ROLLBACK'); db.close(); };
  }
  const connection = await createConnection({ uri: api.store.env.DATABASE_URL! });
  await connection.query('BEGIN');
  // Every row and the gap after the last: an INSERT waits for this lock.
  await connection.query('SELECT id FROM pets FOR UPDATE');
  return async () => { await connection.query('ROLLBACK'); await connection.end(); };
}

describe('a statement held past STATEMENT_TIMEOUT_SECONDS', () => {
  it('answers 503 UNAVAILABLE after the timeout instead of hanging, keeps serving meanwhile, and writes once the lock is gone', async () => {
    expect((await api.post('/v1/pets', { name: 'Before', categoryId: 1 })).status).toBe(201);
    const release = await holdWriteLock();
    try {
      const started = Date.now();
      const writes = Promise.all([
        api.post('/v1/pets', { name: 'Held', categoryId: 1 }, { 'x-held': 'rest' }),
        api.gql('mutation { createPet(input: { name: "Held", categoryId: 1 }) { id } }', undefined, { 'x-held': 'graphql' }),
      ]);
      // The wait for the lock holds neither the event loop nor the other requests: once both writes are on
      // their way to the database (they wait there for 2 s), /healthz is answered at once.
      await expect.poll(() => held.size).toBe(2);
      const t = Date.now();
      const probe = await fetch(`${api.url}/healthz`);
      const health = { status: probe.status, ms: Date.now() - t };
      const [rest, gql] = await writes;
      const ms = Date.now() - started;
      expect(rest.status).toBe(503);
      expect(rest.body).toEqual({ code: 'UNAVAILABLE', message: expect.any(String), status: 503 });
      expect(rest.headers.get('x-request-id')).toBeTruthy();
      // A GraphQL response with data (null: createPet failed) is a 200; its error carries the code.
      expect(gql.status).toBe(200);
      expect(gql.body.data).toBeNull();
      expect(gql.body.errors[0].extensions).toEqual({ code: 'UNAVAILABLE', status: 503 });
      expect(health.status).toBe(200);
      expect(health.ms).toBeLessThan(200);
      expect(ms).toBeGreaterThanOrEqual(1_900);
      expect(ms).toBeLessThan(4_000);
      console.info(`${backend}: a write behind a held lock answered 503 after ${ms} ms; /healthz meanwhile in ${health.ms} ms`);
      // Reads are not behind the writer's lock.
      expect((await api.get('/v1/pets')).status).toBe(200);
    } finally {
      await release();
    }
    expect((await api.post('/v1/pets', { name: 'After', categoryId: 1 })).status).toBe(201);
    expect((await api.get('/v1/pets')).body.map((p: { name: string }) => p.name)).toEqual(['Before', 'After']);
  });
});
