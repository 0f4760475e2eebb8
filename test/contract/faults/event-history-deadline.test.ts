import { createConnection } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend } from '../../support/backend.js';
import { rateLimited } from '../../support/rate-limited.js';
import { startServer, type TestServer } from '../../support/server.js';
import { subscribe } from '../../support/sse.js';

let api: TestServer;
beforeAll(async () => { if (backend === 'mysql') api = await startServer({ env: { STATEMENT_TIMEOUT_SECONDS: '1' } }); });
afterAll(async () => { await api?.close(); });

/** Another client of the same database keeps the outbox from being read until released. */
async function holdEvents(): Promise<() => Promise<void>> {
  const connection = await createConnection({ uri: api.store.env.DATABASE_URL! });
  await connection.query('LOCK TABLES events WRITE');
  return async () => { await connection.query('UNLOCK TABLES'); await connection.end(); };
}

// SQLite in WAL mode lets its readers pass any writer: no other client can hold the outbox's reads.
describe.runIf(backend === 'mysql')('the event history past STATEMENT_TIMEOUT_SECONDS', () => {
  it('answers the feed and a resumed stream 503 UNAVAILABLE within the deadline, and serves them again once the outbox is free', async () => {
    await api.post('/v1/pets', { name: 'Recorded', categoryId: 1 });
    await api.post('/v1/pets', { name: 'Recorded next', categoryId: 1 });
    const [first, second] = (await api.get('/v1/events?limit=2')).body;
    const release = await holdEvents();
    try {
      const started = Date.now();
      const [feed, stream] = await Promise.all([
        api.get(`/v1/events?after=${first.id}`),
        subscribe(api.url, 'subscription($after: SafeInt) { petChanged(after: $after) { id } }', api.headers, { after: first.id }),
      ]);
      const ms = Date.now() - started;
      expect(feed.status).toBe(503);
      expect(feed.body).toEqual({ code: 'UNAVAILABLE', status: 503, message: expect.stringMatching(/try again shortly$/) });
      expect(feed.headers.get('content-type')).toMatch(/^application\/json/);
      rateLimited(feed.headers);
      // Refused before it streams: the one shape of such refusals (stream-refusals.test.ts).
      expect(stream).toMatchObject({ status: 200, opened: false });
      rateLimited(stream.headers);
      expect((await stream.next()).errors).toEqual([{ message: expect.stringMatching(/try again shortly$/), extensions: { code: 'UNAVAILABLE', status: 503 } }]);
      expect(await stream.ended).toBe('complete');
      // The deadline is the statement timeout and half a second, for each read the request waits on.
      expect(ms).toBeLessThan(4_000);
      console.info(`${backend}: the feed and a resumed stream answered 503 within ${ms} ms of a held outbox`);
    } finally {
      await release();
    }
    expect((await api.get(`/v1/events?after=${first.id}`)).body[0]).toMatchObject({ id: second.id });
    const resumed = await subscribe(api.url, 'subscription($after: SafeInt) { petChanged(after: $after) { id } }', api.headers, { after: first.id });
    expect((await resumed.next(5_000)).data.petChanged.id).toBe(second.id);
    resumed.close();
  }, 30_000);
});
