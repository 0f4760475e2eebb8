import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/scopes.js';
import { rateLimited } from '../support/rate-limited.js';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
beforeAll(async () => { api = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_ALLOW_HTTP: 'true' } }); });
afterAll(async () => { await api?.close(); });

/** Every scope but these: the key that may do everything else. */
const allBut = (needed: readonly string[]) => SCOPES.filter((scope) => !needed.includes(scope)).join(' ');

/** The contract, written out: what each REST operation needs (the quota look-up, nothing). */
const REST: [string, string, string[]][] = [
  ['GET', '/v1/pets', ['pets:read']],
  ['POST', '/v1/pets', ['pets:write']],
  ['GET', '/v1/pets/1', ['pets:read']],
  ['PATCH', '/v1/pets/1', ['pets:write']],
  ['DELETE', '/v1/pets/1', ['pets:write']],
  ['GET', '/v1/store/orders', ['orders:read']],
  ['POST', '/v1/store/orders', ['orders:write']],
  ['GET', '/v1/store/orders/1', ['orders:read']],
  ['PATCH', '/v1/store/orders/1', ['orders:write']],
  ['GET', '/v1/events', ['pets:read', 'orders:read']],
  ['GET', '/v1/webhooks', ['webhooks']],
  ['POST', '/v1/webhooks', ['webhooks']],
  ['GET', '/v1/webhooks/1', ['webhooks']],
  ['PATCH', '/v1/webhooks/1', ['webhooks']],
  ['DELETE', '/v1/webhooks/1', ['webhooks']],
  ['POST', '/v1/webhooks/1/test', ['webhooks']],
  ['GET', '/v1/webhooks/1/deliveries', ['webhooks']],
  ['POST', '/v1/webhooks/1/deliveries/1/redeliver', ['webhooks']],
];

const send = (method: string, path: string, auth: Record<string, string>, headers: Record<string, string> = {}) => fetch(`${api.url}${path}`, {
  method,
  headers: { ...auth, ...headers, ...(method === 'POST' || method === 'PATCH' ? { 'content-type': 'application/json' } : {}) },
  ...(method === 'POST' || method === 'PATCH' ? { body: '{}' } : {}),
});

describe('restricted keys on REST', () => {
  it.each(REST)('%s %s: 403 FORBIDDEN naming the missing scope, counted, for a key without it', async (method, path, needed) => {
    const { auth } = await api.newKey('free', {}, allBut(needed));
    const res = await send(method, path, auth);
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.json();
    expect(body).toEqual({ code: 'FORBIDDEN', message: expect.any(String), status: 403 });
    for (const scope of needed) expect(body.message).toContain(scope);
    expect(body.message).toMatch(new RegExp(`^This key may not call ${method} /v1/`));
    // It costs its point like any call: the free plan's minute had 60.
    rateLimited(res.headers);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it.each(REST)('%s %s: runs for a key with exactly the scopes it needs', async (method, path, needed) => {
    const { auth } = await api.newKey('free', {}, needed.join(','));
    const res = await send(method, path, auth);
    expect(res.status).not.toBe(403);
    expect(res.status).toBeLessThan(500);
  });

  it('names every missing scope when several are', async () => {
    const { auth } = await api.newKey('free', {}, 'webhooks');
    const res = await send('GET', '/v1/events', auth);
    expect(res.status).toBe(403);
    expect((await res.json()).message).toBe('This key may not call GET /v1/events: it needs the pets:read and orders:read scopes (it has webhooks)');
  });

  it('lets any key ask for its quota, whatever its scopes', async () => {
    const { auth } = await api.newKey('free', {}, 'webhooks');
    const res = await send('GET', '/v1/rate_limit', auth);
    expect(res.status).toBe(200);
    expect((await res.json()).plan).toBe('free');
  });

  it('answers a bad request as 400 before its scopes are looked at', async () => {
    const { auth } = await api.newKey('free', {}, 'orders:read');
    const res = await fetch(`${api.url}/v1/pets`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"name": ' });
    expect(res.status).toBe(400);
  });

  it('keeps unrestricted keys (made without scopes) able to call everything', async () => {
    const { auth } = await api.newKey('free');
    for (const [method, path] of REST) expect((await send(method, path, auth)).status, `${method} ${path}`).not.toBe(403);
  });
});

const gql = (auth: Record<string, string>, query: string, variables?: object) => fetch(`${api.url}/graphql`, {
  method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: 'application/graphql-response+json' },
  body: JSON.stringify({ query, variables }),
});

/**
 * What each root field needs, on /graphql; and, for a call whose arguments ask for more than the field
 * (a webhook endpoint hears only the records its key may read), what else that call needs to run.
 */
const ROOT_FIELDS: [kind: string, selection: string, needed: string[], callNeeds?: string[]][] = [
  ['query', 'pets { id }', ['pets:read']],
  ['query', 'petsConnection { pageInfo { hasNextPage } }', ['pets:read']],
  ['query', 'pet(petId: 1) { id }', ['pets:read']],
  ['query', 'orders { id }', ['orders:read']],
  ['query', 'ordersConnection { pageInfo { hasNextPage } }', ['orders:read']],
  ['query', 'order(orderId: 1) { id }', ['orders:read']],
  ['query', 'events { id }', ['pets:read', 'orders:read']],
  ['query', 'webhookEndpoints { id }', ['webhooks']],
  ['query', 'webhookEndpoint(endpointId: 1) { id }', ['webhooks']],
  ['query', 'webhookDeliveries(endpointId: 1) { id }', ['webhooks']],
  ['mutation', 'createPet(input: {name: "Rex", categoryId: 1}) { id }', ['pets:write']],
  ['mutation', 'updatePet(petId: 1, input: {name: "Rex"}) { id }', ['pets:write']],
  ['mutation', 'deletePet(petId: 1) { id }', ['pets:write']],
  ['mutation', 'placeOrder(input: {petId: 1}) { id }', ['orders:write']],
  ['mutation', 'updateOrder(orderId: 1, input: {status: approved}) { id }', ['orders:write']],
  ['mutation', 'createWebhookEndpoint(input: {url: "http://127.0.0.1:9/hook", types: ["pet.created"]}) { id }', ['webhooks'], ['pets:read']],
  ['mutation', 'updateWebhookEndpoint(endpointId: 1, input: {enabled: true}) { id }', ['webhooks']],
  ['mutation', 'deleteWebhookEndpoint(endpointId: 1) { id }', ['webhooks']],
  ['mutation', 'testWebhookEndpoint(endpointId: 1) { id }', ['webhooks']],
  ['mutation', 'redeliverWebhook(endpointId: 1, deliveryId: 1) { id }', ['webhooks']],
  ['subscription', 'petChanged { id }', ['pets:read']],
  ['subscription', 'orderChanged { id }', ['orders:read']],
];

describe('restricted keys on GraphQL', () => {
  it.each(ROOT_FIELDS)('%s { %s }: 403 FORBIDDEN naming the scope and the field, no data, counted', async (kind, selection, needed) => {
    const { auth } = await api.newKey('free', {}, allBut(needed));
    const res = await gql(auth, `${kind} { ${selection} }`);
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/^application\/graphql-response\+json/);
    const body = await res.json();
    expect(body.data).toBeUndefined();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions).toEqual({ code: 'FORBIDDEN', status: 403 });
    const field = `${kind[0]!.toUpperCase()}${kind.slice(1)}.${selection.split(/[ ({]/)[0]}`;
    expect(body.errors[0].message).toContain(field);
    for (const scope of needed) expect(body.errors[0].message).toContain(scope);
    rateLimited(res.headers);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it.each(ROOT_FIELDS.filter(([kind]) => kind !== 'subscription'))('%s { %s }: runs for a key with exactly its scopes', async (kind, selection, needed, callNeeds = []) => {
    const { auth } = await api.newKey('free', {}, [...needed, ...callNeeds].join(' '));
    const res = await gql(auth, `${kind} { ${selection} }`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data).toBeDefined();
    // It ran: what it may answer is the store's (a pet not found, an order it may not place), never a refusal or a fault.
    const codes = (body.errors ?? []).map((e: { extensions: { code: string } }) => e.extensions.code);
    expect(codes.filter((code: string) => code === 'FORBIDDEN' || code === 'INTERNAL' || code === 'UNAUTHENTICATED')).toEqual([]);
  });

  it('refuses an operation whole when one of its fields is out of scope: nothing runs', async () => {
    const { auth } = await api.newKey('free', {}, 'pets:write pets:read');
    const count = async () => (await api.get('/v1/pets?limit=100')).body.length;
    const before = await count();
    const res = await gql(auth, 'mutation { a: createPet(input: {name: "Never", categoryId: 1}) { id } b: placeOrder(input: {petId: 1}) { id } }');
    expect(res.status).toBe(403);
    expect((await res.json()).errors[0].message).toBe('This key may not select Mutation.placeOrder: it needs the orders:write scope (it has pets:read, pets:write)');
    expect(await count()).toBe(before);
  });

  it('follows nested fields and fragments to the scopes they need', async () => {
    const { auth } = await api.newKey('free', {}, 'pets:read');
    const nested = await gql(auth, '{ pets { id orders { id } } }');
    expect(nested.status).toBe(403);
    expect((await nested.json()).errors[0].message).toBe('This key may not select Pet.orders: it needs the orders:read scope (it has pets:read)');
    const spread = await gql(auth, 'query { pets { id } ...Orders } fragment Orders on Query { orders { id } }');
    expect(spread.status).toBe(403);
    expect((await spread.json()).errors[0].message).toContain('Query.orders');
    const inline = await gql(auth, '{ ... on Query { ordersConnection { edges { node { id } } } } }');
    expect(inline.status).toBe(403);
    expect((await gql(auth, '{ pets { id name } }')).status).toBe(200);
  });

  it('lets any key look up its quota and the schema', async () => {
    const { auth } = await api.newKey('free', {}, 'webhooks');
    const res = await gql(auth, '{ rateLimit { plan } __schema { queryType { name } } __typename }');
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({ rateLimit: { plan: 'free' }, __schema: { queryType: { name: 'Query' } }, __typename: 'Query' });
  });

  it('refuses a subscription over SSE before its stream opens', async () => {
    const { auth } = await api.newKey('free', {}, 'pets:read');
    const res = await fetch(`${api.url}/graphql`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { orderChanged { id } }' }),
    });
    // As every refusal before a stream opens, for a client that takes only streams (see stream-refusals.test.ts).
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const [error] = JSON.parse(/^data: (.*)$/m.exec(await res.text())![1]!).errors;
    expect(error).toEqual({ message: expect.stringContaining('orders:read'), extensions: { code: 'FORBIDDEN', status: 403 } });
  });
});

describe('a restricted key\'s webhooks', () => {
  const create = (auth: Record<string, string>, types?: string[]) =>
    api.post('/v1/webhooks', { url: 'http://127.0.0.1:9/hook', ...(types ? { types } : {}) }, auth);

  it('hear only the events of records the key may read', async () => {
    const { auth } = await api.newKey('free', {}, 'webhooks pets:read');
    const orders = await create(auth, ['pet.created', 'order.created']);
    expect(orders.status).toBe(403);
    expect(orders.body).toEqual({
      code: 'FORBIDDEN', status: 403,
      message: 'This key may not hear order.created events: it needs the orders:read scope; name in "types" only the events of records it may read',
    });
    // Every type (none named) includes the orders'.
    expect((await create(auth)).status).toBe(403);
    const pets = await create(auth, ['pet.created', 'pet.deleted']);
    expect(pets.status).toBe(201);
    const widened = await api.patch(`/v1/webhooks/${pets.body.id}`, { types: ['order.updated'] }, auth);
    expect(widened.status).toBe(403);
    expect((await api.patch(`/v1/webhooks/${pets.body.id}`, { enabled: false }, auth)).status).toBe(200);
  });

  it('are the same on GraphQL', async () => {
    const { auth } = await api.newKey('free', {}, 'webhooks orders:read');
    const res = await gql(auth, 'mutation { createWebhookEndpoint(input: {url: "http://127.0.0.1:9/hook"}) { id } }');
    const body = await res.json();
    expect(body.errors[0]).toMatchObject({ extensions: { code: 'FORBIDDEN', status: 403 }, message: expect.stringContaining('pets:read') });
    const ok = await gql(auth, 'mutation { createWebhookEndpoint(input: {url: "http://127.0.0.1:9/hook", types: [\"order.created\"]}) { id } }');
    expect((await ok.json()).data.createWebhookEndpoint.id).toEqual(expect.any(Number));
  });
});
