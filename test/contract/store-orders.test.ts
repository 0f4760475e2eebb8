import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimited } from '../support/rate-limited.js';
import { newPetOn, placedOrderOn } from '../support/records.js';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
beforeAll(async () => { api = await startServer(); });
afterAll(async () => { await api?.close(); });

const ORDER_FIELDS = ['complete', 'id', 'petId', 'placedAt', 'status'];
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const newPet = (name?: string) => newPetOn(api, name);
const placed = (petId?: number) => placedOrderOn(api, petId);
const petStatus = async (id: number) => (await api.get(`/v1/pets/${id}`)).body.status;

describe('POST /v1/store/orders', () => {
  it('places an order: 201, the Order with its Location, and the pet becomes pending', async () => {
    const pet = await newPet();
    const res = await api.post('/v1/store/orders', { petId: pet.id });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(ORDER_FIELDS);
    expect(res.body).toMatchObject({ petId: pet.id, status: 'placed', complete: false });
    expect(res.body.placedAt).toMatch(RFC3339_UTC);
    expect(res.headers.get('location')).toBe(`/v1/store/orders/${res.body.id}`);
    rateLimited(res.headers);
    expect((await api.get(res.headers.get('location')!)).body).toEqual(res.body);
    expect(await petStatus(pet.id)).toBe('pending');
  });

  it('refuses a pet that is not available: 409 CONFLICT naming its status', async () => {
    const order = await placed();
    const res = await api.post('/v1/store/orders', { petId: order.petId });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ code: 'CONFLICT', status: 409, message: expect.stringMatching(new RegExp(`Pet ${order.petId} is pending`)) });
    rateLimited(res.headers);
    const sold = await api.post('/v1/pets', { name: 'Sold already', categoryId: 1, status: 'sold' });
    expect((await api.post('/v1/store/orders', { petId: sold.body.id })).status).toBe(409);
  });

  it('answers 404 naming an unknown petId', async () => {
    const res = await api.post('/v1/store/orders', { petId: 987654321 });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'NOT_FOUND', status: 404, message: 'Pet 987654321 not found' });
  });

  it.each([
    [{}, /Missing required field "petId"/],
    [{ petId: '5' }, /"petId"/],
    [{ petId: 1.5 }, /"petId"/],
    [{ petId: 0 }, /"petId"/],
    [{ petId: 1, status: 'delivered' }, /Unknown field "status".*placed/],
    [{ petId: 1, id: 7 }, /Unknown field "id"/],
    [[{ petId: 1 }], /JSON object/],
  ])('is strict about its body: %j → 400', async (body, message) => {
    const res = await api.post('/v1/store/orders', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'BAD_REQUEST', status: 400, message: expect.stringMatching(message) });
    rateLimited(res.headers);
  });

  it('wants JSON (415), at most 64 KiB (413), a key (401), and POST, GET or HEAD (405)', async () => {
    const text = await fetch(`${api.url}/v1/store/orders`, { method: 'POST', headers: { ...api.headers, 'content-type': 'text/plain' }, body: '{"petId":1}' });
    expect(text.status).toBe(415);
    expect(await text.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    const big = await api.post('/v1/store/orders', { petId: 1, pad: 'x'.repeat(70_000) });
    expect(big.status).toBe(413);
    const anonymous = await fetch(`${api.url}/v1/store/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"petId":1}' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    rateLimited(anonymous.headers);
    const put = await fetch(`${api.url}/v1/store/orders`, { method: 'PUT', headers: api.headers });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
  });
});

describe('GET /v1/store/orders', () => {
  it('lists orders by ascending id, 20 by default, filtered by status, each exactly an Order', async () => {
    for (let i = 0; i < 22; i += 1) await placed();
    const all = await api.get('/v1/store/orders');
    expect(all.status).toBe(200);
    expect(all.body).toHaveLength(20);
    const ids = all.body.map((o: { id: number }) => o.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const order of all.body) expect(Object.keys(order).sort()).toEqual(ORDER_FIELDS);
    rateLimited(all.headers);

    const cancelled = await placed();
    await api.patch(`/v1/store/orders/${cancelled.id}`, { status: 'cancelled' });
    const only = await api.get('/v1/store/orders?status=cancelled&limit=100');
    expect(only.body.length).toBeGreaterThan(0);
    expect(only.body.every((o: { status: string }) => o.status === 'cancelled')).toBe(true);
    expect((await api.get('/v1/store/orders?limit=3')).body).toHaveLength(3);
  });

  it.each([
    ['limit=0', 'limit'], ['limit=101', 'limit'], ['limit=abc', 'limit'], ['limit=1.5', 'limit'], ['limit=2&limit=3', 'limit'],
    ['status=lost', 'status'],
  ])('refuses %s with 400 naming "%s"', async (query, parameter) => {
    const res = await api.get(`/v1/store/orders?${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining(`"${parameter}"`), status: 400 });
  });
});

describe('GET /v1/store/orders/{orderId}', () => {
  it('answers the order, 404 for an unknown one, 400 for a malformed id', async () => {
    const order = await placed();
    const res = await api.get(`/v1/store/orders/${order.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(order);
    expect(res.headers.get('deprecation')).toBeNull();
    const missing = await api.get('/v1/store/orders/987654321');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ code: 'NOT_FOUND', status: 404, message: 'Order 987654321 not found' });
    rateLimited(missing.headers);
    for (const bad of ['abc', '0', '-1', '1.5', '9007199254740992']) {
      expect((await api.get(`/v1/store/orders/${bad}`)).status, bad).toBe(400);
    }
  });
});

describe('PATCH /v1/store/orders/{orderId}', () => {
  it('moves an order placed → approved → delivered; the pet ends sold and the order complete', async () => {
    const order = await placed();
    const approved = await api.patch(`/v1/store/orders/${order.id}`, { status: 'approved' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ id: order.id, status: 'approved', complete: false });
    expect(await petStatus(order.petId)).toBe('pending');
    const delivered = await api.patch(`/v1/store/orders/${order.id}`, { status: 'delivered' }, { 'content-type': 'application/merge-patch+json' });
    expect(delivered.status).toBe(200);
    expect(Object.keys(delivered.body).sort()).toEqual(ORDER_FIELDS);
    expect(delivered.body).toMatchObject({ status: 'delivered', complete: true, placedAt: order.placedAt });
    rateLimited(delivered.headers);
    expect(await petStatus(order.petId)).toBe('sold');
  });

  it.each([['placed'], ['approved']])('cancels a %s order; the pet is available again, and can be ordered again', async (from) => {
    const order = await placed();
    if (from === 'approved') await api.patch(`/v1/store/orders/${order.id}`, { status: 'approved' });
    const res = await api.patch(`/v1/store/orders/${order.id}`, { status: 'cancelled' });
    expect(res.body).toMatchObject({ status: 'cancelled', complete: false });
    expect(await petStatus(order.petId)).toBe('available');
    expect((await api.post('/v1/store/orders', { petId: order.petId })).status).toBe(201);
  });

  it.each([
    [[], 'delivered'], [[], 'placed'], [['approved'], 'placed'], [['approved'], 'approved'],
    [['approved', 'delivered'], 'cancelled'], [['cancelled'], 'approved'], [['approved', 'delivered'], 'delivered'],
  ])('after %j refuses %s with 409 naming both states, changing nothing', async (path, to) => {
    const order = await placed();
    for (const status of path) expect((await api.patch(`/v1/store/orders/${order.id}`, { status })).status).toBe(200);
    const before = await petStatus(order.petId);
    const from = path.at(-1) ?? 'placed';
    const res = await api.patch(`/v1/store/orders/${order.id}`, { status: to });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'CONFLICT', status: 409 });
    expect(res.body.message).toContain(`"${from}"`);
    expect(res.body.message).toContain(`"${to}"`);
    rateLimited(res.headers);
    expect((await api.get(`/v1/store/orders/${order.id}`)).body.status).toBe(from);
    expect(await petStatus(order.petId)).toBe(before);
  });

  it('answers 404 for an unknown order, 400 for a bad body, 415 for a body that is not JSON', async () => {
    expect((await api.patch('/v1/store/orders/987654321', { status: 'approved' })).status).toBe(404);
    const order = await placed();
    for (const body of [{}, { status: 'lost' }, { status: 'approved', petId: 3 }, { status: null }, 'approved']) {
      const res = await api.patch(`/v1/store/orders/${order.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
    }
    const text = await fetch(`${api.url}/v1/store/orders/${order.id}`, { method: 'PATCH', headers: { ...api.headers, 'content-type': 'text/plain' }, body: '{}' });
    expect(text.status).toBe(415);
    expect((await api.get(`/v1/store/orders/${order.id}`)).body.status).toBe('placed');
  });
});

describe('the store over GraphQL', () => {
  it('runs every operation, with the nested Order.pet and Pet.orders', async () => {
    const created = await api.gql('mutation { createPet(input: { name: "Graph", categoryId: 2 }) { id } }');
    const petId = created.body.data.createPet.id;
    const placedOrder = await api.gql('mutation($p: SafeInt!) { placeOrder(input: { petId: $p }) { id status complete placedAt pet { id status } } }', { p: petId });
    expect(placedOrder.status).toBe(200);
    const order = placedOrder.body.data.placeOrder;
    expect(order).toMatchObject({ status: 'placed', complete: false, pet: { id: petId, status: 'pending' } });
    const moved = await api.gql('mutation($o: SafeInt!) { updateOrder(orderId: $o, input: { status: approved }) { status } }', { o: order.id });
    expect(moved.body.data.updateOrder.status).toBe('approved');
    const read = await api.gql('query($o: SafeInt!, $p: SafeInt!) { order(orderId: $o) { id pet { name orders { id status } } } orders(status: approved, limit: 100) { id } pet(petId: $p) { orders { id } } }', { o: order.id, p: petId });
    expect(read.body.data.order).toEqual({ id: order.id, pet: { name: 'Graph', orders: [{ id: order.id, status: 'approved' }] } });
    expect(read.body.data.orders.map((o: { id: number }) => o.id)).toContain(order.id);
    const renamed = await api.gql('mutation($p: SafeInt!) { updatePet(petId: $p, input: { name: "Renamed" }) { name status } }', { p: petId });
    expect(renamed.body.data.updatePet).toEqual({ name: 'Renamed', status: 'pending' });

    const conflict = await api.gql('mutation($p: SafeInt!) { deletePet(petId: $p) { id } }', { p: petId });
    expect(conflict.status).toBe(200);
    expect(conflict.body.data).toBeNull();
    expect(conflict.body.errors[0].extensions).toEqual({ code: 'CONFLICT', status: 409 });
    const other = (await api.gql('mutation { createPet(input: { name: "Gone", categoryId: 2 }) { id } }')).body.data.createPet.id;
    const deleted = await api.gql('mutation($p: SafeInt!) { deletePet(petId: $p) { id name } }', { p: other });
    expect(deleted.body.data.deletePet).toEqual({ id: other, name: 'Gone' });
  });

  it('codes its errors: status in a change is BAD_REQUEST saying why, a forbidden move CONFLICT', async () => {
    const pet = await newPet();
    const status = await api.gql('mutation($p: SafeInt!) { updatePet(petId: $p, input: { status: sold }) { id } }', { p: pet.id });
    expect(status.status).toBe(400);
    expect(status.body.errors[0].message).toMatch(/only through its orders/);
    expect(status.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    const order = await placed(pet.id);
    const forbidden = await api.gql('mutation($o: SafeInt!) { updateOrder(orderId: $o, input: { status: delivered }) { id } }', { o: order.id });
    expect(forbidden.body.errors[0]).toMatchObject({ extensions: { code: 'CONFLICT', status: 409 }, message: expect.stringContaining('"placed"') });
    const missing = await api.gql('{ order(orderId: 987654321) { id } }');
    expect(missing.body.data.order).toBeNull();
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('costs one point per root field, like every operation', async () => {
    const first = await api.gql('{ orders(limit: 1) { id } }');
    const second = await api.gql('{ a: orders(limit: 1) { id } b: orders(limit: 1) { id } }');
    expect(Number(first.headers.get('x-ratelimit-remaining')) - Number(second.headers.get('x-ratelimit-remaining'))).toBe(2);
  });
});
