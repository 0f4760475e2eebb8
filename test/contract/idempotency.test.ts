import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { petCounter } from '../support/pet-count.js';
import { rateLimited } from '../support/rate-limited.js';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
let pets: Awaited<ReturnType<typeof petCounter>>;
beforeAll(async () => {
  api = await startServer();
  pets = await petCounter(api.store);
});
afterAll(async () => {
  await pets?.close();
  await api?.close();
});

let n = 0;
const fresh = () => `retry-${Date.now()}-${(n += 1)}`;

describe('Idempotency-Key', () => {
  it('runs the first request, and answers a retry with the stored response, creating nothing', async () => {
    const key = fresh();
    const before = await pets.count();
    const first = await api.post('/v1/pets', { name: 'Once', categoryId: 1 }, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await api.post('/v1/pets', { name: 'Once', categoryId: 1 }, { 'idempotency-key': key });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    rateLimited(again.headers);
    expect(await pets.count()).toBe(before + 1);
  });

  it('refuses the same key with another body: 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const key = fresh();
    await api.post('/v1/pets', { name: 'First', categoryId: 1 }, { 'idempotency-key': key });
    const other = await api.post('/v1/pets', { name: 'Second', categoryId: 1 }, { 'idempotency-key': key });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', status: 422 });
    rateLimited(other.headers);
  });

  it('keeps no error: a failed request runs again when retried, and the key can then succeed', async () => {
    const key = fresh();
    const failed = await api.post('/v1/pets', { name: '', categoryId: 1 }, { 'idempotency-key': key });
    expect(failed.status).toBe(400);
    const again = await api.post('/v1/pets', { name: '', categoryId: 1 }, { 'idempotency-key': key });
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    const fixed = await api.post('/v1/pets', { name: 'Fixed', categoryId: 1 }, { 'idempotency-key': key });
    expect(fixed.status).toBe(201);
    const replay = await api.post('/v1/pets', { name: 'Fixed', categoryId: 1 }, { 'idempotency-key': key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('creates one pet for 50 identical concurrent POSTs with one key, one order for 20: 201s and 409 IDEMPOTENCY_IN_PROGRESS only', async () => {
    const pet = (await api.post('/v1/pets', { name: 'Contested', categoryId: 1 })).body;
    const before = await pets.count();
    const key = fresh();
    const answers = await Promise.all(Array.from({ length: 50 }, () => api.post('/v1/pets', { name: 'Concurrent', categoryId: 2 }, { 'idempotency-key': key })));
    expect(await pets.count()).toBe(before + 1);
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.body.id)).size).toBe(1);
    for (const busy of answers.filter((a) => a.status !== 201)) {
      expect(busy.status).toBe(409);
      expect(busy.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
      expect(busy.headers.get('retry-after')).toBe('1');
    }
    const orderKey = fresh();
    const orders = await Promise.all(Array.from({ length: 20 }, () => api.post('/v1/store/orders', { petId: pet.id }, { 'idempotency-key': orderKey })));
    expect(new Set(orders.filter((o) => o.status === 201).map((o) => o.body.id)).size).toBe(1);
    expect(orders.every((o) => o.status === 201 || o.body.code === 'IDEMPOTENCY_IN_PROGRESS')).toBe(true);
  });

  it('is per API key: another key with the same Idempotency-Key runs its own request', async () => {
    const key = fresh();
    const { auth } = await api.newKey('pro');
    const mine = await api.post('/v1/pets', { name: 'Mine', categoryId: 1 }, { 'idempotency-key': key });
    const theirs = await api.post('/v1/pets', { name: 'Mine', categoryId: 1 }, { ...auth, 'idempotency-key': key });
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('works for GraphQL mutations, as an HTTP header', async () => {
    const key = fresh();
    const before = await pets.count();
    const query = 'mutation { createPet(input: { name: "Graph once", categoryId: 1 }) { id } }';
    const first = await api.gql(query, undefined, { 'idempotency-key': key });
    const again = await api.gql(query, undefined, { 'idempotency-key': key });
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await pets.count()).toBe(before + 1);
  });

  it.each([['', 'empty'], ['x'.repeat(256), 'too long'], ['caf\u00e9', 'not ASCII'], ['two words', 'a space']])(
    'refuses a key that is %s (%s) with 400',
    async (key) => {
      const res = await fetch(`${api.url}/v1/pets`, {
        method: 'POST', headers: { ...api.headers, 'content-type': 'application/json', 'idempotency-key': key }, body: '{"name":"K","categoryId":1}',
      });
      expect(res.status).toBe(400);
      expect((await res.json()).message).toMatch(/Idempotency-Key/);
    },
  );
});
