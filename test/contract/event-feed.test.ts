import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneEvents } from '../../src/db/outbox.js';
import { prepared } from '../../src/db/prepared.js';
import { openStore } from '../support/backend.js';
import { startServer, type TestServer } from '../support/server.js';
import { subscribe, type EventStream } from '../support/sse.js';

let api: TestServer;
let db: DataSource;
const streams: EventStream[] = [];
beforeAll(async () => {
  api = await startServer({ env: { SUBSCRIPTIONS_PER_KEY: '20' } });
  db = await openStore(api.store);
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  await db?.destroy();
  await api?.close();
});

/** `after=` for the events after `id`, none for all of them (0 is no event id). */
const after = (id: number, join = '?') => (id > 0 ? `${join}after=${id}` : '');
const newest = async () => Number((await db.query('SELECT COALESCE(MAX(id), 0) AS id FROM events'))[0].id);
const EVENT_FIELDS = 'id type occurredAt pet { id name categoryId status } order { id petId status complete placedAt }';
const open = async (query: string, headers: Record<string, string> = api.headers, variables?: object) => {
  const stream = await subscribe(api.url, query, headers, variables);
  streams.push(stream);
  return stream;
};
/** A refusal in the Error shape: its status, code and the headers every counted answer carries. */
function expectRefusal(reply: { status: number; body: any; headers: Headers }, status: number, code: string, message: RegExp) {
  expect(reply.status).toBe(status);
  expect(reply.body).toEqual({ code, status, message: expect.stringMatching(message) });
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(reply.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  expect(reply.headers.get('x-request-id')).toBeTruthy();
}

describe('the event feed', () => {
  it('pages through the changes oldest first, the same on both surfaces, with Link to the next page and a type filter', async () => {
    const from = await newest();
    const pet = (await api.post('/v1/pets', { name: 'Fed', categoryId: 3 })).body;
    const renamed = (await api.patch(`/v1/pets/${pet.id}`, { name: 'Fed again' })).body;
    const order = (await api.post('/v1/store/orders', { petId: pet.id })).body;

    const all = await api.get(`/v1/events${after(from)}`);
    expect(all.status).toBe(200);
    const occurredAt = new Date(api.clock.now()).toISOString();
    expect(all.body).toEqual([
      { id: from + 1, type: 'pet.created', occurredAt, pet, order: null },
      { id: from + 2, type: 'pet.updated', occurredAt, pet: renamed, order: null },
      { id: from + 3, type: 'order.created', occurredAt, pet: null, order },
      { id: from + 4, type: 'pet.updated', occurredAt, pet: { ...renamed, status: 'pending' }, order: null },
    ]);
    const graphql = await api.gql(`query($after: SafeInt) { events(after: $after) { ${EVENT_FIELDS} } }`, { after: from || null });
    expect(graphql.body).toEqual({ data: { events: all.body } });

    // Pages of two: Link names the next one, which ends the walk (no Link).
    const first = await api.get(`/v1/events?limit=2${after(from, '&')}`);
    expect(first.body.map((event: any) => event.id)).toEqual([from + 1, from + 2]);
    expect(first.headers.get('link')).toBe(`</v1/events?limit=2&after=${from + 2}>; rel="next"`);
    const second = await api.get(`/v1/events?after=${from + 2}&limit=2`);
    expect(second.body.map((event: any) => event.id)).toEqual([from + 3, from + 4]);
    expect(second.headers.get('link')).toBeNull();

    const updates = await api.get(`/v1/events?type=pet.updated${after(from, '&')}`);
    expect(updates.body.map((event: any) => event.id)).toEqual([from + 2, from + 4]);
    // Without `after`, from the oldest kept.
    const start = await api.get('/v1/events?limit=1');
    expect(start.body[0].id).toBe(Number((await db.query('SELECT MIN(id) AS id FROM events'))[0].id));
  });

  it('shows a change the moment its write is answered', async () => {
    const from = await newest();
    const pet = (await api.post('/v1/pets', { name: 'At once', categoryId: 1 })).body;
    expect((await api.get(`/v1/events${after(from)}`)).body.map((event: any) => event.pet.id)).toEqual([pet.id]);
  });

  it('refuses what is no event id, an id never given out, an unknown type and a bad limit (400), on both surfaces', async () => {
    const last = await newest();
    expectRefusal(await api.get('/v1/events?after=abc'), 400, 'BAD_REQUEST', /after/);
    expectRefusal(await api.get('/v1/events?after=0'), 400, 'BAD_REQUEST', /after/);
    expectRefusal(await api.get(`/v1/events?after=${last + 1000}`), 400, 'BAD_REQUEST', new RegExp(`^No event has the id ${last + 1000}: the newest is ${last}$`));
    expectRefusal(await api.get('/v1/events?type=pet.sold'), 400, 'BAD_REQUEST', /type.*pet\.created, pet\.updated, pet\.deleted, order\.created, order\.updated/);
    expectRefusal(await api.get('/v1/events?limit=101'), 400, 'BAD_REQUEST', /"limit" must be an integer from 1 to 100/);
    const graphql = await api.gql('{ events(type: "pet.sold") { id } }');
    expect(graphql.status).toBe(400);
    expect(graphql.body.errors[0].extensions).toEqual({ code: 'BAD_REQUEST', status: 400 });
  });
});

describe('resumable streams', () => {
  it('send each event with its id, and start after a given one: the recorded events in order, then the live ones', async () => {
    const from = await newest();
    const live = await open('subscription { petChanged { id kind pet { name } } }');
    const names = ['One', 'Two', 'Three'];
    for (const name of names) await api.post('/v1/pets', { name, categoryId: 1 });
    const heard = [await live.next(), await live.next(), await live.next()].map((event) => event.data.petChanged);
    expect(heard.map((event) => event.pet.name)).toEqual(names);
    expect(live.ids).toEqual(heard.map((event) => String(event.id)));

    // After the first: the two others from the record, then what comes next, live.
    const resumed = await open('subscription($after: SafeInt) { petChanged(after: $after) { id pet { name } } }', api.headers, { after: heard[0].id });
    expect(resumed.opened).toBe(true);
    expect([await resumed.next(), await resumed.next()].map((event) => event.data.petChanged.pet.name)).toEqual(['Two', 'Three']);
    await api.post('/v1/pets', { name: 'Four', categoryId: 1 });
    expect((await resumed.next()).data.petChanged.pet.name).toBe('Four');
    await expect(resumed.next(300)).rejects.toThrow(/no event/);

    // Last-Event-ID, as an EventSource sends it on reconnecting, takes the place of the argument.
    const reconnected = await open('subscription($after: SafeInt) { petChanged(after: $after) { pet { name } } }',
      { ...api.headers, 'last-event-id': String(heard[1].id) }, { after: from });
    expect([await reconnected.next(), await reconnected.next()].map((event) => event.data.petChanged.pet.name)).toEqual(['Three', 'Four']);
    expect(reconnected.ids).toEqual([String(heard[2].id), String(heard[2].id + 1)]);
  });

  it('filter the record as they filter live events: another topic\'s events and other records are not sent', async () => {
    const from = await newest();
    const pet = (await api.post('/v1/pets', { name: 'Ordered', categoryId: 1 })).body;
    const order = (await api.post('/v1/store/orders', { petId: pet.id })).body;
    const orders = await open('subscription($after: SafeInt) { orderChanged(after: $after) { id order { id status } } }', api.headers, { after: from });
    expect((await orders.next()).data.orderChanged).toEqual({ id: from + 2, order: { id: order.id, status: 'placed' } });
    const onePet = await open('subscription($after: SafeInt, $id: SafeInt) { petChanged(after: $after, petId: $id) { kind } }', api.headers, { after: from, id: pet.id });
    expect([await onePet.next(), await onePet.next()].map((event) => event.data.petChanged.kind)).toEqual(['CREATED', 'UPDATED']);
    await expect(orders.next(300)).rejects.toThrow(/no event/);
  });

  it('refuse an id whose successors were pruned (410 EVENTS_EXPIRED), an id never given out and a malformed Last-Event-ID (400)', async () => {
    const last = await newest();
    const stream = 'subscription($after: SafeInt) { petChanged(after: $after) { id } }';
    // Refused before the stream opens, once the operation runs or by the pipeline alike: a stream that an
    // EventSource reads (200, the error as one event, then the end), with the rate-limit headers.
    const never = await open(stream, api.headers, { after: last + 50 });
    expect(never).toMatchObject({ status: 200, opened: false });
    expect(never.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect((await never.next()).errors[0]).toEqual({ message: `No event has the id ${last + 50}: the newest is ${last}`, extensions: { code: 'BAD_REQUEST', status: 400 } });
    expect(await never.ended).toBe('complete');
    const malformed = await open('subscription { petChanged { id } }', { ...api.headers, 'last-event-id': 'twelve' });
    expect(malformed.status).toBe(200);
    const [error] = (await malformed.next()).errors;
    expect(error.extensions).toEqual({ code: 'BAD_REQUEST', status: 400 });
    expect(error.message).toMatch(/^Last-Event-ID must be the id of an event this service sent/);
    expect(await malformed.ended).toBe('complete');

    // Everything but the newest is past the retention, and pruned.
    await api.post('/v1/pets', { name: 'Kept', categoryId: 1 });
    await pruneEvents(prepared(db), api.clock.now() + 1);
    const expired = await open(stream, api.headers, { after: last - 1 });
    expect(expired.status).toBe(200);
    expect(expired.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect((await expired.next()).errors[0]).toMatchObject({
      message: `The events after ${last - 1} are no longer kept (events are kept for 72 hours; the oldest now is ${last + 1}): read the records again, then follow the events from the newest`,
      extensions: { code: 'EVENTS_EXPIRED', status: 410 },
    });
    expect(await expired.ended).toBe('complete');
    expectRefusal(await api.get(`/v1/events?after=${last - 1}`), 410, 'EVENTS_EXPIRED', /^The events after \d+ are no longer kept/);
    // Right after the last pruned id, nothing was missed: the feed and streams go on from there.
    expect((await api.get(`/v1/events?after=${last}`)).body.map((event: any) => event.pet.name)).toEqual(['Kept']);
    const onTime = await open(stream, api.headers, { after: last });
    expect((await onTime.next()).data.petChanged.id).toBe(last + 1);
  });
});
