import { afterAll, describe, expect, it } from 'vitest';
import { revokeKey } from '../../src/auth/key-admin.js';
import { apiKeyStore } from '../../src/db/api-keys.js';
import { graphiqlFetcher, operationsIn } from '../../src/pages/graphiql-fetcher.js';
import { openStore } from '../support/backend.js';
import { rateLimited } from '../support/rate-limited.js';
import { startServer, type TestServer } from '../support/server.js';
import { subscribe, type EventStream } from '../support/sse.js';

const redisUrl = process.env.TEST_REDIS_URL;
const servers: { server: TestServer; ownsStore: boolean }[] = [];
const streams: EventStream[] = [];
afterAll(async () => {
  for (const stream of streams) stream.close();
  for (const { server, ownsStore } of servers.reverse()) await (ownsStore ? server.close() : server.stop());
});

async function server(options: Parameters<typeof startServer>[0] = {}) {
  const started = await startServer(options);
  servers.push({ server: started, ownsStore: !options.store });
  return started;
}
/**
 * One server for the cases that need nothing of their own (limits, time, a shutdown). Their streams stay
 * open until the end, so a key may hold more of them than the default 5.
 */
let sharedServer: Promise<TestServer> | undefined;
const shared = () => (sharedServer ??= server({ env: { SUBSCRIPTIONS_PER_KEY: '100' } }));

/**
 * A subscription over SSE, opened. The server answers once the stream listens on every instance (in
 * process at once; through Redis once Redis confirmed the channel), so a 200 hears every later change.
 */
async function open(api: TestServer, query: string, headers = api.headers, variables?: object) {
  const stream = await subscribe(api.url, query, headers, variables);
  streams.push(stream);
  return stream;
}

const PET_EVENTS = 'subscription($id: SafeInt) { petChanged(petId: $id) { kind pet { id name status } } }';
const ORDER_EVENTS = 'subscription($id: SafeInt) { orderChanged(orderId: $id) { kind order { id petId status complete } } }';

describe('live events over Server-Sent Events', () => {
  it('tells every change to a pet, and to an order, with what happened', async () => {
    const api = await shared();
    const pets = await open(api, PET_EVENTS);
    const orders = await open(api, ORDER_EVENTS);
    expect(pets.status).toBe(200);
    expect(pets.headers.get('content-type')).toMatch(/^text\/event-stream/);

    const pet = (await api.post('/v1/pets', { name: 'Live', categoryId: 1 })).body;
    expect(await pets.next()).toEqual({ data: { petChanged: { kind: 'CREATED', pet: { id: pet.id, name: 'Live', status: 'available' } } } });
    const order = (await api.post('/v1/store/orders', { petId: pet.id })).body;
    expect(await orders.next()).toEqual({ data: { orderChanged: { kind: 'CREATED', order: { id: order.id, petId: pet.id, status: 'placed', complete: false } } } });
    expect((await pets.next()).data.petChanged).toEqual({ kind: 'UPDATED', pet: { id: pet.id, name: 'Live', status: 'pending' } });
    await api.gql('mutation($o: SafeInt!) { updateOrder(orderId: $o, input: { status: cancelled }) { id } }', { o: order.id });
    expect((await orders.next()).data.orderChanged.order.status).toBe('cancelled');
    expect((await pets.next()).data.petChanged.pet.status).toBe('available');

    const other = (await api.post('/v1/pets', { name: 'Brief', categoryId: 1 })).body;
    await pets.next();
    await api.del(`/v1/pets/${other.id}`);
    expect((await pets.next()).data.petChanged).toEqual({ kind: 'DELETED', pet: { id: other.id, name: 'Brief', status: 'available' } });
  });

  it('filters by id when one is given', async () => {
    const api = await shared();
    const first = (await api.post('/v1/pets', { name: 'Watched', categoryId: 1 })).body;
    const second = (await api.post('/v1/pets', { name: 'Ignored', categoryId: 1 })).body;
    const watched = await open(api, PET_EVENTS, api.headers, { id: first.id });
    await api.patch(`/v1/pets/${second.id}`, { name: 'Ignored still' });
    await api.patch(`/v1/pets/${first.id}`, { name: 'Seen' });
    expect((await watched.next()).data.petChanged.pet).toMatchObject({ id: first.id, name: 'Seen' });
    // Nothing else, ever: what must not come is given 300 ms (a window; there is no event for "never").
    await expect(watched.next(300)).rejects.toThrow(/no event/);
  });

  it('needs a key (401), costs one point, and refuses a bad subscription before it streams', async () => {
    const api = await shared();
    // Refused before it streams: a stream an EventSource can read (see stream-refusals.test.ts), with the refusal's headers.
    const anonymous = await subscribe(api.url, PET_EVENTS, {});
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await anonymous.next()).errors[0].extensions).toEqual({ code: 'UNAUTHENTICATED', status: 401 });
    const { auth } = await api.newKey('free');
    const stream = await open(api, PET_EVENTS, auth);
    expect(stream.headers.get('x-ratelimit-remaining')).toBe('59');
    // Over SSE a refused operation is one event with its errors, then the end of the stream.
    const bad = await subscribe(api.url, 'subscription { petChanged(petId: 0) { kind } }', auth);
    expect((await bad.next()).errors[0].extensions).toEqual({ code: 'BAD_REQUEST', status: 400 });
    expect(await bad.ended).toBe('complete');
  });

  it('holds a key to SUBSCRIPTIONS_PER_KEY open streams (429 beyond), and frees a slot when one closes', async () => {
    const api = await server({ env: { SUBSCRIPTIONS_PER_KEY: '2' } });
    const { auth } = await api.newKey('pro');
    const one = await open(api, PET_EVENTS, auth);
    await open(api, ORDER_EVENTS, auth);
    const third = await subscribe(api.url, PET_EVENTS, auth);
    expect(third).toMatchObject({ status: 200, opened: false });
    expect(third.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    rateLimited(third.headers);
    expect((await third.next()).errors[0]).toMatchObject({ extensions: { code: 'RATE_LIMITED', status: 429 }, message: expect.stringMatching(/2 open subscriptions/) });
    // Another key has slots of its own.
    expect((await open(api, PET_EVENTS)).opened).toBe(true);
    one.close();
    // The slot is free once the server has seen the connection close: asked again until it is, within 300 ms.
    await expect.poll(async () => (await open(api, PET_EVENTS, auth)).opened, { timeout: 300, interval: 10 }).toBe(true);
  });

  it('ends the streams of a revoked key within KEY_CACHE_TTL_SECONDS', async () => {
    const api = await server({ env: { KEY_CACHE_TTL_SECONDS: '1' } });
    const { key, auth } = await api.newKey('pro');
    const stream = await open(api, PET_EVENTS, auth);
    const admin = await openStore(api.store);
    try { await revokeKey(apiKeyStore(admin), key); } finally { await admin.destroy(); }
    api.clock.advance(1_000);
    const started = Date.now();
    expect(await stream.ended).toBe('complete');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('ends every stream cleanly when the service shuts down', async () => {
    const api = await server();
    const stream = await open(api, PET_EVENTS);
    const stopping = api.stop();
    expect(await stream.ended).toBe('complete');
    await stopping;
  });

  it("runs in GraphiQL: the page's fetcher hands a subscription to GraphiQL as an async iterator, and stops it", async () => {
    const api = await shared();
    const fetcher = graphiqlFetcher(`${api.url}/graphql`, operationsIn);
    // No case on the shared server delivers an order.
    const query = await fetcher({ query: '{ orders(limit: 1, status: delivered) { id } }' }, { headers: api.headers });
    expect(query).toEqual({ data: { orders: [] } });
    const live = await fetcher({ query: 'subscription Live { petChanged { kind pet { name } } }', operationName: 'Live' }, { headers: api.headers }) as AsyncGenerator<unknown>;
    expect(typeof live[Symbol.asyncIterator]).toBe('function');
    // The fetcher hands the stream over once the server has answered it, and so once it listens.
    const first = live.next();
    await api.post('/v1/pets', { name: 'In GraphiQL', categoryId: 1 });
    expect((await first).value).toEqual({ data: { petChanged: { kind: 'CREATED', pet: { name: 'In GraphiQL' } } } });
    expect(await live.return(undefined)).toEqual({ done: true, value: undefined });
  });

  it.runIf(redisUrl)('crosses instances through Redis: published on one, heard on the other within 1 s', async () => {
    const a = await server({ env: { REDIS_URL: redisUrl! } });
    const b = await server({ store: a.shared.store, clock: a.shared.clock, env: { ...a.shared.env, REDIS_URL: redisUrl! } });
    const onB = await open(b, PET_EVENTS);
    const started = Date.now();
    const pet = (await a.post('/v1/pets', { name: 'Travelling', categoryId: 1 })).body;
    expect((await onB.next(1_000)).data.petChanged.pet).toMatchObject({ id: pet.id, name: 'Travelling' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it.runIf(redisUrl)('counts a key\'s open streams across instances', async () => {
    const a = await server({ env: { REDIS_URL: redisUrl!, SUBSCRIPTIONS_PER_KEY: '2' } });
    const b = await server({ store: a.shared.store, clock: a.shared.clock, env: { ...a.shared.env, REDIS_URL: redisUrl!, SUBSCRIPTIONS_PER_KEY: '2' } });
    const { auth } = await a.newKey('pro');
    await open(a, PET_EVENTS, auth);
    await open(b, PET_EVENTS, auth);
    for (const refused of [await subscribe(a.url, PET_EVENTS, auth), await subscribe(b.url, PET_EVENTS, auth)]) {
      expect((await refused.next()).errors[0].extensions).toEqual({ code: 'RATE_LIMITED', status: 429 });
    }
  });
});
