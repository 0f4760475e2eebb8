import mysql from 'mysql2/promise';
import { afterAll, describe, expect, it } from 'vitest';
import { backend, openStore } from '../support/backend.js';
import { ownRedis } from '../support/redis-server.js';
import { listeningUrl, spawnServer } from '../support/process.js';
import { startPair, startServer, type TestServer } from '../support/server.js';
import { subscribe, type EventStream } from '../support/sse.js';

const stops: (() => Promise<void>)[] = [];
const streams: EventStream[] = [];
afterAll(async () => {
  for (const stream of streams) stream.close();
  for (const stop of stops.reverse()) await stop();
});

const PET_EVENTS = 'subscription { petChanged { kind pet { id name } } }';

/** Two instances on one store and, when the backend has one, a Redis of the test's own. */
async function pair(env: Record<string, string> = {}) {
  const started = await startPair(env);
  stops.push(() => started.stop());
  return started;
}
async function listen(api: TestServer) {
  const stream = await subscribe(api.url, PET_EVENTS, api.headers);
  streams.push(stream);
  return stream;
}
/** The names of the next `count` pet events on `stream`, each within `ms`. */
async function names(stream: EventStream, count: number, ms: number): Promise<string[]> {
  const heard: string[] = [];
  for (let i = 0; i < count; i++) heard.push((await stream.next(ms)).data.petChanged.pet.name);
  return heard;
}

describe('live events from the outbox', () => {
  it.runIf(backend === 'mysql')('lose nothing while Redis is gone: every change is heard on the other instance, once, in at most the poll\'s second', async () => {
    const redis = await ownRedis();
    stops.push(() => redis.stop());
    const { a, b } = await pair({ REDIS_URL: redis.url });
    const onB = await listen(b);
    await a.post('/v1/pets', { name: 'Before', categoryId: 1 });
    expect(await names(onB, 1, 1_000)).toEqual(['Before']);

    await redis.kill();
    for (const name of ['While gone 1', 'While gone 2', 'While gone 3']) await a.post('/v1/pets', { name, categoryId: 1 });
    expect(await names(onB, 3, 2_000)).toEqual(['While gone 1', 'While gone 2', 'While gone 3']);
    await redis.start();
    await a.post('/v1/pets', { name: 'After', categoryId: 1 });
    expect(await names(onB, 1, 2_000)).toEqual(['After']);
    // Nothing twice.
    await expect(onB.next(1_500)).rejects.toThrow();
  });

  it('lose nothing when the writing instance dies between its commit and its wake-up: the others read it at their next poll', async () => {
    const { a, b } = await pair();
    const onB = await listen(b);
    // A committed change whose instance never told anyone: its event is only in the outbox.
    await insertBehindTheService(a, 'Orphaned');
    expect(await names(onB, 1, 2_000)).toEqual(['Orphaned']);
  });

  it.runIf(backend === 'mysql')('lose nothing when the writing instance is killed (SIGKILL) right after its commits', async () => {
    const b = await startServer();
    stops.push(() => b.close());
    const onB = await listen(b);
    const a = spawnServer({ ...b.store.env, REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_PREFIX: b.config.redisPrefix, LOG_FORMAT: 'json' });
    stops.push(async () => { a.child.kill('SIGKILL'); await a.exited; });
    const url = await listeningUrl(a);
    const names3 = ['Killed 1', 'Killed 2', 'Killed 3'];
    for (const name of names3) {
      const res = await fetch(`${url}/v1/pets`, { method: 'POST', headers: { ...b.headers, 'content-type': 'application/json' }, body: JSON.stringify({ name, categoryId: 1 }) });
      expect(res.status).toBe(201);
    }
    // At once after its last answer: its wake-up may or may not have gone out.
    a.child.kill('SIGKILL');
    await a.exited;
    expect(await names(onB, 3, 2_500)).toEqual(names3);
    await expect(onB.next(1_200)).rejects.toThrow(/no event/);
  });

  it.runIf(backend === 'mysql')('deliver an event whose transaction commits after a later one\'s (its lower id appears last), then the later one: in id order, on streams and the feed', async () => {
    const { a, b } = await pair();
    const onB = await listen(b);
    const admin = await mysql.createConnection({ uri: a.config.database.kind === 'mysql' ? a.config.database.url : '' });
    try {
      // The lower id is taken first, by a transaction that stays open.
      await admin.query('START TRANSACTION');
      const [held] = await admin.query('INSERT INTO events (type, occurred_at, payload) VALUES (?, ?, ?)',
        ['pet.updated', Date.now(), JSON.stringify({ kind: 'UPDATED', pet: { id: 1, name: 'Committed late', categoryId: 1, status: 'available' } })]) as any;
      await a.post('/v1/pets', { name: 'Committed first', categoryId: 1 });
      // Held back while the lower id may still commit: a client that resumed after it would miss that one.
      await expect(onB.next(1_500)).rejects.toThrow(/no event/);
      const feed = (api: TestServer) => api.get(held.insertId > 1 ? `/v1/events?after=${held.insertId - 1}` : '/v1/events');
      expect((await feed(b)).body).toEqual([]);
      expect((await feed(a)).body).toEqual([]);
      await admin.query('COMMIT');
      expect(await names(onB, 2, 2_000)).toEqual(['Committed late', 'Committed first']);
      for (const api of [a, b]) {
        expect((await feed(api)).body.map((event: any) => [event.id, event.pet.name])).toEqual([[held.insertId, 'Committed late'], [held.insertId + 1, 'Committed first']]);
      }
    } finally {
      await admin.end();
    }
  });
});

/** An event written into the outbox straight through SQL, as a change committed by an instance that died before its wake-up. */
async function insertBehindTheService(api: TestServer, name: string): Promise<void> {
  const db = await openStore(api.store);
  try {
    const pet = { id: 424242, name, categoryId: 1, status: 'available' };
    await db.query('INSERT INTO events (type, occurred_at, payload) VALUES (?, ?, ?)', ['pet.created', Date.now(), JSON.stringify({ kind: 'CREATED', pet })]);
  } finally {
    await db.destroy();
  }
}
