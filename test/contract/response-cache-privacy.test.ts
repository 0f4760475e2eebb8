import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globalId } from '../../src/domain/global-ids.js';
import { isCacheable } from '../../src/schema/extensions.js';
import { schema } from '../../src/schema/index.js';
import { startPair, startServer, type TestServer } from '../support/server.js';

/**
 * A kept answer goes only to a caller who would get the same bytes without the cache: keys of equal scopes
 * (unrestricted, or restricted alike) each read their own webhook endpoints through `node` and `nodes`, by
 * GET and POST, on two instances, and each is answered as an instance without the cache answers it.
 */
type Key = { auth: Record<string, string>; endpoint: string };
/** Endpoints are never sent to here: names that need no lookup of a public address. */
const LOOPBACK = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
let pair: Awaited<ReturnType<typeof startPair>>;
let truth: TestServer;
const keys: Record<string, [Key, Key]> = {};

const endpointOf = async (server: TestServer, auth: Record<string, string>, host: string): Promise<Key> => {
  const made = await server.post<{ id: number }>('/v1/webhooks', { url: `https://${host}.example.com/in`, types: ['pet.created'] }, auth);
  expect(made.status).toBe(201);
  return { auth, endpoint: globalId('WebhookEndpoint', made.body.id) };
};

beforeAll(async () => {
  pair = await startPair(LOOPBACK);
  truth = await startServer({ store: pair.a.shared.store, clock: pair.a.shared.clock, env: { ...pair.a.shared.env, RESPONSE_CACHE_MB: '0' } });
  await pair.a.post('/v1/pets', { name: 'Shared', categoryId: 1 });
  await pair.a.post('/v1/store/orders', { petId: 1 });
  for (const scopes of [undefined, 'pets:read webhooks', 'pets:read orders:read webhooks']) {
    const made = [];
    for (const who of ['first', 'second']) made.push(await endpointOf(pair.a, (await pair.a.newKey('pro', {}, scopes)).auth, `${who}-${scopes ? 'restricted' : 'full'}`));
    keys[scopes ?? 'unrestricted'] = made as [Key, Key];
  }
});
afterAll(async () => {
  await truth?.stop();
  await pair?.stop();
});

const queries = (endpoint: string) => [
  `{ node(id: "${endpoint}") { nodeId ... on WebhookEndpoint { url enabled } } }`,
  `{ nodes(ids: ["${endpoint}", "${globalId('Pet', 1)}"]) { nodeId ... on WebhookEndpoint { url } ... on Pet { name } } }`,
];

const ask = async (server: TestServer, query: string, auth: Record<string, string>, method: 'GET' | 'POST') => {
  const res = method === 'GET'
    ? await fetch(`${server.url}/graphql?query=${encodeURIComponent(query)}`, { headers: auth })
    : await fetch(`${server.url}/graphql`, { method, headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  return { status: res.status, body: (await res.text()).replace(/"requestId":"[^"]*"/g, '"requestId":"…"'), cacheStatus: res.headers.get('cache-status') };
};

describe('the response cache and records that belong to a key', () => {
  it('never hands one key\'s endpoint to another key of the same scopes, on either instance, by GET or POST', async () => {
    for (const [scopes, [owner, other]] of Object.entries(keys)) {
      for (const query of queries(owner.endpoint)) {
        for (const method of ['GET', 'POST'] as const) {
          // The owner reads it on both instances, twice (what a cache would keep), then the other key asks the same.
          for (const server of [pair.a, pair.b, pair.a, pair.b]) {
            const got = await ask(server, query, owner.auth, method);
            expect(got.body, `${scopes} ${method} ${query}`).toContain('.example.com/in');
            expect(got.body).toBe((await ask(truth, query, owner.auth, method)).body);
          }
          for (const server of [pair.a, pair.b]) {
            const got = await ask(server, query, other.auth, method);
            expect(got.cacheStatus, `${scopes} ${method} ${query}`).not.toBe('animal-store; hit');
            expect(got.body, `${scopes} ${method} ${query}`).not.toContain('.example.com/in');
            expect(got.body).toContain('NOT_FOUND');
            expect(got.body).toBe((await ask(truth, query, other.auth, method)).body);
          }
        }
      }
    }
  });

  it('shows an endpoint\'s change to its owner at once, on either instance', async () => {
    const { auth, endpoint } = keys.unrestricted![0];
    const [query] = queries(endpoint);
    for (const server of [pair.a, pair.b]) await ask(server, query!, auth, 'GET');
    const id = Buffer.from(endpoint, 'base64url').toString().split(':')[1];
    expect((await pair.a.patch(`/v1/webhooks/${id}`, { url: 'https://moved.example.com/in' }, auth)).status).toBe(200);
    for (const server of [pair.a, pair.b]) expect((await ask(server, query!, auth, 'GET')).body).toContain('moved.example.com');
  });
});

/**
 * Every cacheable root field, as a client would read it: each answer to each key, on both instances, after
 * another key of the same scopes asked the same, is the answer an instance without the cache gives that
 * key. A field marked cacheable that has no reading here fails the first test: it must be walked.
 */
const READINGS: Record<string, (endpoint: string) => string[]> = {
  pets: () => ['{ pets(limit: 5) { id name status orders { id status } } }'],
  pet: () => ['{ pet(petId: 1) { id name orders { id status } } }'],
  orders: () => ['{ orders(limit: 5) { id status pet { id name } } }'],
  order: () => ['{ order(orderId: 1) { id status pet { id name } } }'],
  petsConnection: () => ['{ petsConnection(first: 5) { edges { cursor node { id name nodeId } } pageInfo { hasNextPage endCursor } } }'],
  ordersConnection: () => ['{ ordersConnection(first: 5) { edges { node { id status } } pageInfo { hasNextPage } } }'],
  node: (endpoint) => [endpoint, globalId('Pet', 1), globalId('Order', 1)].map((id) => `{ node(id: "${id}") { nodeId ...Each } } ${EACH}`),
  nodes: (endpoint) => [`{ nodes(ids: ["${endpoint}", "${globalId('Pet', 1)}", "${globalId('Order', 1)}"]) { nodeId ...Each } } ${EACH}`],
};
const EACH = 'fragment Each on Node { ... on WebhookEndpoint { id url types enabled } ... on Pet { name } ... on Order { status } }';

describe('every cacheable root field, read by keys of equal scopes', () => {
  it('has a reading here', () => {
    const cacheable = Object.values(schema.getQueryType()!.getFields()).filter((field) => isCacheable(field.extensions)).map((field) => field.name);
    expect(cacheable.length).toBeGreaterThan(0);
    expect(Object.keys(READINGS).sort()).toEqual(cacheable.sort());
  });

  it('answers each key as an instance without the cache does', async () => {
    for (const [scopes, pairOfKeys] of Object.entries(keys)) {
      for (const [first, second] of [pairOfKeys, [...pairOfKeys].reverse() as [Key, Key]]) {
        for (const [field, readings] of Object.entries(READINGS)) {
          for (const query of readings(first.endpoint)) {
            for (const method of ['GET', 'POST'] as const) {
              for (const [who, server] of [[first, pair.a], [first, pair.b], [second, pair.a], [second, pair.b], [first, pair.b], [second, pair.a]] as const) {
                const got = await ask(server, query, who.auth, method);
                const { status, body } = await ask(truth, query, who.auth, method);
                expect({ status: got.status, body: got.body }, `${scopes} ${field} ${method} ${query}`).toEqual({ status, body });
              }
            }
          }
        }
      }
    }
  });
});
