import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimited } from '../support/rate-limited.js';
import { newPetOn, placedOrderOn } from '../support/records.js';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
beforeAll(async () => { api = await startServer(); });
afterAll(async () => { await api?.close(); });

const JSON_TYPE = /^application\/json/;
const newPet = (name?: string) => newPetOn(api, name);
const placed = () => placedOrderOn(api);

describe('POST /v1/pets', () => {
  it('creates a pet, answers 201 with the stored record, status defaulting to available', async () => {
    const res = await api.post('/v1/pets', { name: 'Rex', categoryId: 3 });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(JSON_TYPE);
    expect(res.body).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'available' });
    expect(Number.isInteger(res.body.id) && res.body.id >= 1).toBe(true);
  });

  it('says where the new pet lives: Location /v1/pets/{id}, which serves it', async () => {
    const res = await api.post('/v1/pets', { name: 'Located', categoryId: 3 });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/v1/pets/${res.body.id}`);
    expect((await api.get(res.headers.get('location')!)).body).toEqual(res.body);
  });

  it('sends no Location with an error', async () => {
    const res = await api.post('/v1/pets', { name: 'No', categoryId: 0 });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('keeps a given status and assigns increasing ids', async () => {
    const a = await api.post('/v1/pets', { name: 'A', categoryId: 1, status: 'pending' });
    const b = await api.post('/v1/pets', { name: 'B', categoryId: 1, status: 'sold' });
    expect(a.body).toMatchObject({ name: 'A', status: 'pending' });
    expect(b.body).toMatchObject({ name: 'B', status: 'sold' });
    expect(b.body.id).toBeGreaterThan(a.body.id);
  });

  it('stores a name of 255 characters, and names exactly as sent (spaces, emoji)', async () => {
    const long = 'x'.repeat(255);
    const exact = '  🐶 Rex the 3rd, 雪 ✨👩‍👩‍👧  ';
    for (const name of [long, exact, '🐕'.repeat(255)]) {
      const created = await api.post('/v1/pets', { name, categoryId: 9 });
      expect(created.status).toBe(201);
      expect(created.body.name).toBe(name);
      const fetched = await api.get(`/v1/pets/${created.body.id}`);
      expect(fetched.body.name).toBe(name);
    }
  });

  it('carries categoryId up to 2^53-1 exactly', async () => {
    const res = await api.post('/v1/pets', { name: 'Big', categoryId: 9007199254740991 });
    expect(res.status).toBe(201);
    expect(res.body.categoryId).toBe(9007199254740991);
  });

  it('takes its fields only from the body, never the query string', async () => {
    const res = await api.post('/v1/pets?name=Query&input=%7B%7D&status=sold', { name: 'Body', categoryId: 2 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Body', categoryId: 2, status: 'available' });
  });
});

describe('GET /v1/pets', () => {
  let mine: TestServer;
  const created: { id: number; status: string }[] = [];
  beforeAll(async () => {
    mine = await startServer();
    const statuses = ['available', 'pending', 'sold'];
    for (let i = 0; i < 25; i += 1) {
      const res = await mine.post('/v1/pets', { name: `Pet ${i}`, categoryId: 1 + (i % 4), status: statuses[i % 3] });
      created.push(res.body);
    }
  });
  afterAll(async () => { await mine?.close(); });

  it('lists 20 pets by default, in ascending id order', async () => {
    const res = await mine.get('/v1/pets');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(JSON_TYPE);
    expect(res.body).toHaveLength(20);
    expect(res.body.map((p: { id: number }) => p.id)).toEqual(created.slice(0, 20).map((p) => p.id));
    expect(res.body[0]).toEqual(created[0]);
  });

  it.each([1, 7, 100])('honours limit=%i', async (limit) => {
    const res = await mine.get(`/v1/pets?limit=${limit}`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(Math.min(limit, created.length));
  });

  it.each(['available', 'pending', 'sold'])('filters by status=%s, still ordered by id', async (status) => {
    const res = await mine.get(`/v1/pets?status=${status}&limit=100`);
    const expected = created.filter((p) => p.status === status).map((p) => p.id);
    expect(res.body.map((p: { id: number }) => p.id)).toEqual(expected);
  });

  it('combines status and limit', async () => {
    const res = await mine.get('/v1/pets?status=sold&limit=3');
    expect(res.body.map((p: { id: number }) => p.id)).toEqual(created.filter((p) => p.status === 'sold').slice(0, 3).map((p) => p.id));
  });

  it('ignores unknown query parameters', async () => {
    const res = await mine.get('/v1/pets?limit=2&color=brown');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
  });

  it('answers an empty array for a status nobody has', async () => {
    const empty = await startServer();
    try {
      const res = await empty.get('/v1/pets?status=sold');
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
    } finally {
      await empty.close();
    }
  });
});

describe('GET /v1/pets/{petId} (deprecated)', () => {
  it('returns the pet with Deprecation and Sunset headers', async () => {
    const { body: pet } = await api.post('/v1/pets', { name: 'Old', categoryId: 5 });
    const res = await api.get(`/v1/pets/${pet.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(pet);
    expect(res.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(res.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  });

  it('answers 404 NOT_FOUND for a well-formed id that does not exist, still with the headers', async () => {
    const res = await api.get('/v1/pets/9007199254740991');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(JSON_TYPE);
    expect(res.body).toEqual({ code: 'NOT_FOUND', message: 'Pet 9007199254740991 not found', status: 404 });
    expect(res.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  });
});

describe('PATCH /v1/pets/{petId}', () => {
  it('changes the name and the category; answers exactly the Pet', async () => {
    const pet = await newPet('Before');
    const res = await api.patch(`/v1/pets/${pet.id}`, { name: '🐕 After' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: pet.id, name: '🐕 After', categoryId: 1, status: 'available' });
    rateLimited(res.headers);
    const both = await api.patch(`/v1/pets/${pet.id}`, { name: 'Again', categoryId: 9007199254740991 }, { 'content-type': 'application/merge-patch+json' });
    expect(both.body).toEqual({ id: pet.id, name: 'Again', categoryId: 9007199254740991, status: 'available' });
    expect((await api.get(`/v1/pets/${pet.id}`)).body).toEqual(both.body);
  });

  it.each([
    [{ status: 'sold' }, /status.*only through its orders/],
    [{}, /empty/],
    [{ name: null }, /cannot be removed/],
    [{ name: '   ' }, /white space/],
    [{ name: 'x'.repeat(256) }, /at most 255/],
    [{ categoryId: 0 }, /categoryId/],
    [{ categoryId: '2' }, /categoryId/],
    [{ id: 4 }, /Unknown field "id"/],
  ])('refuses %j with 400 that says why, changing nothing', async (body, message) => {
    const pet = await newPet('Unchanged');
    const res = await api.patch(`/v1/pets/${pet.id}`, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(message) });
    expect((await api.get(`/v1/pets/${pet.id}`)).body).toEqual(pet);
  });

  it('answers 404 for an unknown pet', async () => {
    const res = await api.patch('/v1/pets/987654321', { name: 'Nobody' });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('Pet 987654321 not found');
  });
});

describe('DELETE /v1/pets/{petId}', () => {
  it('removes a pet without orders: 204 without a body, then 404', async () => {
    const pet = await newPet('Leaving');
    const res = await fetch(`${api.url}/v1/pets/${pet.id}`, { method: 'DELETE', headers: api.headers });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(res.headers.get('content-type')).toBeNull();
    rateLimited(res.headers);
    expect((await api.get(`/v1/pets/${pet.id}`)).status).toBe(404);
    expect((await api.del(`/v1/pets/${pet.id}`)).status).toBe(404);
  });

  it('keeps a pet with any order, even a cancelled one: 409', async () => {
    const order = await placed();
    await api.patch(`/v1/store/orders/${order.id}`, { status: 'cancelled' });
    const res = await api.del(`/v1/pets/${order.petId}`);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(`Pet ${order.petId} has orders`) });
    expect((await api.get(`/v1/pets/${order.petId}`)).status).toBe(200);
  });
});
