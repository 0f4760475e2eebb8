import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneEvents } from '../../src/db/outbox.js';
import { prepared } from '../../src/db/prepared.js';
import { openStore } from '../support/backend.js';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
let db: DataSource;
beforeAll(async () => {
  api = await startServer();
  db = await openStore(api.store);
});
afterAll(async () => {
  await db?.destroy();
  await api?.close();
});

interface Recorded { id: number; type: string; occurredAt: number; payload: any }
/** The outbox's rows after `after`, read behind the server's back. */
const recorded = async (after: number): Promise<Recorded[]> =>
  (await db.query('SELECT id, type, occurred_at AS occurredAt, payload FROM events WHERE id > ? ORDER BY id', [after]))
    .map((row: any) => ({ id: Number(row.id), type: row.type, occurredAt: Number(row.occurredAt), payload: JSON.parse(row.payload) }));
const last = async () => Number((await db.query('SELECT COALESCE(MAX(id), 0) AS id FROM events'))[0].id);

describe('the outbox', () => {
  it('records every change with its event, the record as GraphQL\'s event types carry it', async () => {
    const from = await last();
    const pet = (await api.post('/v1/pets', { name: 'Outboxed', categoryId: 2 })).body;
    const renamed = (await api.patch(`/v1/pets/${pet.id}`, { name: 'Renamed' })).body;
    const order = (await api.post('/v1/store/orders', { petId: pet.id })).body;
    const approved = (await api.patch(`/v1/store/orders/${order.id}`, { status: 'approved' })).body;
    const other = (await api.gql('mutation { createPet(input: { name: "Gone soon", categoryId: 1 }) { id name categoryId status } }')).body.data.createPet;
    expect((await api.del(`/v1/pets/${other.id}`)).status).toBe(204);

    const events = await recorded(from);
    expect(events.map(({ type, payload }) => ({ type, payload }))).toEqual([
      { type: 'pet.created', payload: { kind: 'CREATED', pet } },
      { type: 'pet.updated', payload: { kind: 'UPDATED', pet: renamed } },
      { type: 'order.created', payload: { kind: 'CREATED', order } },
      { type: 'pet.updated', payload: { kind: 'UPDATED', pet: { ...renamed, status: 'pending' } } },
      { type: 'order.updated', payload: { kind: 'UPDATED', order: approved } },
      { type: 'pet.updated', payload: { kind: 'UPDATED', pet: { ...renamed, status: 'pending' } } },
      { type: 'pet.created', payload: { kind: 'CREATED', pet: other } },
      { type: 'pet.deleted', payload: { kind: 'DELETED', pet: other } },
    ]);
    // Ids only grow; each event has the time of its change (the test server's clock stands still).
    expect(events.map((event) => event.id)).toEqual([...events.map((event) => event.id)].sort((a, b) => a - b));
    expect(new Set(events.map((event) => event.occurredAt))).toEqual(new Set([api.clock.now()]));
  });

  it('records nothing for a change that did not happen', async () => {
    const from = await last();
    expect((await api.patch('/v1/pets/987654', { name: 'Nobody' })).status).toBe(404);
    expect((await api.del('/v1/pets/987654')).status).toBe(404);
    expect((await api.post('/v1/store/orders', { petId: 987654 })).status).toBe(404);
    const pet = (await api.post('/v1/pets', { name: 'Ordered twice', categoryId: 1 })).body;
    expect((await api.post('/v1/store/orders', { petId: pet.id })).status).toBe(201);
    expect((await api.post('/v1/store/orders', { petId: pet.id })).status).toBe(409);
    expect((await api.del(`/v1/pets/${pet.id}`)).status).toBe(409);
    expect((await recorded(from)).map((event) => event.type)).toEqual(['pet.created', 'order.created', 'pet.updated']);
  });

  it('forgets events past their retention, lowest ids first, a few at a time; one behind a younger event waits, the newest stays', async () => {
    const now = api.clock.now();
    const old = now - 73 * 3_600_000;
    // Every event of the earlier tests is past the retention too.
    await db.query('UPDATE events SET occurred_at = ?', [old]);
    const earlier = Number((await db.query('SELECT COUNT(*) AS n FROM events'))[0].n);
    const from = await last();
    for (const at of [old, old, old, now, old, old]) {
      await db.query('INSERT INTO events (type, occurred_at, payload) VALUES (?, ?, ?)', ['pet.updated', at, '{}']);
    }
    // In batches of two, up to the younger event: the old ones after it wait for it (ids go lowest first).
    expect(await pruneEvents(prepared(db), now - 72 * 3_600_000, 2)).toBe(earlier + 3);
    expect((await recorded(0)).map((event) => event.occurredAt)).toEqual([now, old, old]);
    expect((await recorded(0))[0]!.id).toBe(from + 4);
    // Once it is old too, all go but the newest, kept whatever its age: the last id given out stays known.
    await db.query('UPDATE events SET occurred_at = ?', [old]);
    expect(await pruneEvents(prepared(db), now - 72 * 3_600_000, 2)).toBe(2);
    expect((await recorded(0)).map((event) => event.id)).toEqual([from + 6]);
  });
});
