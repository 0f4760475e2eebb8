import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globalId } from '../../src/domain/global-ids.js';
import { rateLimited } from '../support/rate-limited.js';
import { compileRelay, relayEnvironment, type RelayArtifacts } from '../support/relay/compile.js';
import { startServer, type TestServer } from '../support/server.js';

/** The smallest node limit, so that a few aliases of `nodes` reach it. */
let api: TestServer;
let relay: RelayArtifacts;
beforeAll(async () => {
  [api, relay] = await Promise.all([startServer({ env: { GRAPHQL_MAX_NODES: '10000' } }), compileRelay()]);
});
afterAll(async () => {
  await api?.close();
  await relay?.remove();
});

interface Made { id: number; nodeId: string }
const newPet = async (name = 'Rex'): Promise<Made> =>
  (await api.gql('mutation($n: String!) { createPet(input: { name: $n, categoryId: 1 }) { id nodeId } }', { n: name })).body.data.createPet;
const newOrder = async (petId: number): Promise<Made> =>
  (await api.gql('mutation($p: SafeInt!) { placeOrder(input: { petId: $p }) { id nodeId } }', { p: petId })).body.data.placeOrder;
const newEndpoint = async (auth: Record<string, string>): Promise<Made> =>
  (await api.gql('mutation { createWebhookEndpoint(input: { url: "https://93.184.215.14/in", types: ["order.updated"] }) { id } }', {}, auth)).body.data.createWebhookEndpoint;

const NODE = 'query($id: ID!) { node(id: $id) { __typename nodeId ... on Pet { id name } ... on Order { id petId } ... on WebhookEndpoint { id url } } }';
const NODES = 'query($ids: [ID!]!) { nodes(ids: $ids) { __typename nodeId ... on Pet { id } ... on Order { id } } }';
const encoded = (text: string) => Buffer.from(text).toString('base64url');
const error = (code: string, status: number, path: (string | number)[], message: unknown = expect.any(String)) =>
  ({ message, path, locations: expect.any(Array), extensions: { code, status } });

describe('Relay, with the real relay-compiler and relay-runtime', () => {
  it('compiles a @refetchable fragment on Pet with nodeInterfaceIdField nodeId, and refetches it through node', () => {
    // useRefetchableFragment sends the fragment's nodeId as this variable: it must be the refetch query's
    // (without nodeInterfaceIdVariableName relay-compiler 21 names them apart: `id` and `$nodeId`).
    expect(relay.fragment.metadata?.refetch).toMatchObject({ identifierInfo: { identifierField: 'nodeId', identifierQueryVariableName: 'nodeId' } });
    expect(relay.refetch.params.text).toMatch(/^query PetStorePetRefetchQuery\(\n {2}\$nodeId: ID!\n\) \{\n {2}node\(id: \$nodeId\)/);
  });

  it('keeps one store record per pet, keyed by its nodeId, and the refetch query updates it', async () => {
    const pets = [await newPet('Ada'), await newPet('Bo')];
    const { environment, records, fetch } = relayEnvironment(api.url, api.headers);
    await fetch(relay.pets, {});
    const listed = records().filter((r) => r.__typename === 'Pet');
    expect(new Set(listed.map((r) => r.__id)).size).toBe(listed.length);
    for (const pet of pets) expect(listed.filter((r) => r.id === pet.id).map((r) => r.__id)).toEqual([pet.nodeId]);

    expect((await api.patch(`/v1/pets/${pets[0]!.id}`, { name: 'Ada Lovelace' })).status).toBe(200);
    const { identifierQueryVariableName } = relay.fragment.metadata!.refetch!.identifierInfo!;
    await fetch(relay.refetch, { [identifierQueryVariableName]: pets[0]!.nodeId });
    expect(environment.getStore().getSource().get(pets[0]!.nodeId)).toMatchObject({ __typename: 'Pet', id: pets[0]!.id, name: 'Ada Lovelace' });
    expect(records().filter((r) => r.__typename === 'Pet')).toHaveLength(listed.length);
  });

  it('keeps a pet and an order with the same integer id as two records', async () => {
    const order = await newOrder((await newPet('Cy')).id);
    // Pets are never deleted here and each order has its own pet, so pet ids reach the order's.
    while ((await newPet('Di')).id < order.id);
    const twin = { id: order.id, nodeId: globalId('Pet', order.id) };
    const { records, fetch } = relayEnvironment(api.url, api.headers);
    const data = await fetch(relay.sameId, { pet: twin.nodeId, order: order.nodeId }) as { pet: { id: number }; order: { id: number } };
    expect(data.pet.id).toBe(data.order.id);
    const same = records().filter((r) => r.id === order.id && (r.__typename === 'Pet' || r.__typename === 'Order'));
    expect(same.map((r) => [r.__typename, r.__id]).sort()).toEqual([['Order', order.nodeId], ['Pet', twin.nodeId]]);
    expect(twin.nodeId).not.toBe(order.nodeId);
  });
});

describe('node and nodes', () => {
  it('fetch a pet, an order and a webhook endpoint by nodeId, as their own fields answer them, compiled or not', async () => {
    const pet = await newPet();
    const order = await newOrder(pet.id);
    const owner = await api.newKey('free');
    const endpoint = await newEndpoint(owner.auth);
    const endpointNodeId = (await api.gql('query($id: SafeInt!) { webhookEndpoint(endpointId: $id) { nodeId } }', { id: endpoint.id }, owner.auth)).body.data.webhookEndpoint.nodeId;
    const cases: [string, Record<string, string>, object][] = [
      [pet.nodeId, api.headers, { __typename: 'Pet', nodeId: pet.nodeId, id: pet.id, name: 'Rex' }],
      [order.nodeId, api.headers, { __typename: 'Order', nodeId: order.nodeId, id: order.id, petId: pet.id }],
      [endpointNodeId, owner.auth, { __typename: 'WebhookEndpoint', nodeId: endpointNodeId, id: endpoint.id, url: 'https://93.184.215.14/in' }],
    ];
    for (const [id, auth, node] of cases) {
      // The second run of a document runs compiled (graphql-jit).
      for (const run of [1, 2]) {
        const reply = await api.gql(NODE, { id }, auth);
        expect(reply.status, `run ${run}`).toBe(200);
        expect(reply.body, `run ${run}`).toEqual({ data: { node } });
        rateLimited(reply.headers);
      }
    }
    expect(pet.nodeId).toBe(globalId('Pet', pet.id));
    expect(pet.nodeId).toBe(encoded(`Pet:${pet.id}`));
  });

  it('gives every pet and order its nodeId wherever it is answered (lists, nested fields), compiled or not', async () => {
    await newOrder((await newPet()).id);
    const query = '{ pets(limit: 100) { id nodeId } orders(limit: 100) { id nodeId pet { id nodeId } } }';
    for (const run of [1, 2]) {
      const { data } = (await api.gql(query)).body as { data: { pets: Made[]; orders: (Made & { pet: Made })[] } };
      expect(data.orders.length, `run ${run}`).toBeGreaterThan(0);
      expect(data.pets.filter((p) => p.nodeId !== globalId('Pet', p.id)), `run ${run}`).toEqual([]);
      expect(data.orders.filter((o) => o.nodeId !== globalId('Order', o.id) || o.pet.nodeId !== globalId('Pet', o.pet.id)), `run ${run}`).toEqual([]);
    }
  });

  it('answers nodes in the order asked, repeats included, a missing record null with NOT_FOUND at its place', async () => {
    const pet = await newPet();
    const order = await newOrder(pet.id);
    const missing = globalId('Pet', 9_007_199_254_740_991);
    const reply = await api.gql(NODES, { ids: [order.nodeId, missing, pet.nodeId, order.nodeId] });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      data: { nodes: [
        { __typename: 'Order', nodeId: order.nodeId, id: order.id }, null,
        { __typename: 'Pet', nodeId: pet.nodeId, id: pet.id }, { __typename: 'Order', nodeId: order.nodeId, id: order.id },
      ] },
      errors: [error('NOT_FOUND', 404, ['nodes', 1], 'Pet 9007199254740991 not found')],
    });
    expect((await api.gql(NODES, { ids: [] })).body).toEqual({ data: { nodes: [] } });
  });

  it.each([
    ['garbage', 'not a global id!', 'is not one'],
    ['empty', '', 'is not one'],
    ['padded base64', 'UGV0OjE=', 'is not one'],
    ['base64 with + and /', '+/+/', 'is not one'],
    ['a second spelling of Pet:1', 'UGV0OjF', 'is not one'],
    ['no type', encoded('1'), 'is not one'],
    ['an unknown type', encoded('Dog:1'), 'names the type "Dog", which has none: Pet, Order, WebhookEndpoint have'],
    ['the id 0', encoded('Pet:0'), 'holds an id outside 1 to 2^53-1'],
    ['an id past 2^53-1', encoded('Pet:9007199254740992'), 'holds an id outside 1 to 2^53-1'],
    ['a leading zero', encoded('Pet:01'), 'is not one'],
    ['a negative id', encoded('Pet:-1'), 'is not one'],
    ['a long string', 'A'.repeat(10_000), 'is not one'],
  ])('refuses %s as an id: null and 400 BAD_REQUEST, on node and on nodes', async (_case, id, why) => {
    const shown = JSON.stringify(id.length > 44 ? `${id.slice(0, 44)}…` : id);
    const one = await api.gql(NODE, { id });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ data: { node: null }, errors: [error('BAD_REQUEST', 400, ['node'], `"id" must be a global id as a nodeId field gives it; ${shown} ${why}`)] });
    const many = await api.gql(NODES, { ids: [globalId('Pet', 1), id] });
    expect(many.body.data.nodes[1]).toBeNull();
    expect(many.body.errors).toEqual([error('BAD_REQUEST', 400, ['nodes', 1], `"ids[1]" must be a global id as a nodeId field gives it; ${shown} ${why}`)]);
  });

  it('refuses an integer literal as an id (GraphQL\'s ID takes it, as the string "5")', async () => {
    const reply = await api.gql('{ node(id: 5) { nodeId } }');
    expect(reply.body).toEqual({ data: { node: null }, errors: [error('BAD_REQUEST', 400, ['node'], expect.stringContaining('"5" is not one'))] });
  });

  it('refuses more than 100 ids with 400 BAD_REQUEST, before reading any', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => globalId('Pet', i + 1));
    const reply = await api.gql(NODES, { ids });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ data: null, errors: [error('BAD_REQUEST', 400, ['nodes'], '"ids" may hold at most 100 global ids, got 101')] });
    expect((await api.gql(NODES, { ids: ids.slice(0, 100) })).body.data.nodes).toHaveLength(100);
  });
});

describe('node and nodes keep the rules of the records\' own fields', () => {
  it('refuses a key without orders:read an order through node and nodes: null and 403 FORBIDDEN naming the scope, the pets still answered', async () => {
    const pet = await newPet();
    const order = await newOrder(pet.id);
    const { auth } = await api.newKey('free', {}, 'pets:read');
    const forbidden = 'This key may not read Order records through Query.node: it needs the orders:read scope (it has pets:read)';
    expect((await api.gql(NODE, { id: order.nodeId }, auth)).body).toEqual({ data: { node: null }, errors: [error('FORBIDDEN', 403, ['node'], forbidden)] });
    // Refused before it is read: an order that does not exist is refused alike.
    expect((await api.gql(NODE, { id: globalId('Order', 9_007_199_254_740_991) }, auth)).body.errors[0].extensions.code).toBe('FORBIDDEN');
    const many = await api.gql(NODES, { ids: [pet.nodeId, order.nodeId] }, auth);
    expect(many.body).toEqual({
      data: { nodes: [{ __typename: 'Pet', nodeId: pet.nodeId, id: pet.id }, null] },
      errors: [error('FORBIDDEN', 403, ['nodes', 1], forbidden.replace('Query.node', 'Query.nodes'))],
    });
    // A field of a type the document names still needs its scope before anything runs, as everywhere.
    const whole = await api.gql('query($id: ID!) { node(id: $id) { ... on Pet { orders { id } } } }', { id: pet.nodeId }, auth);
    expect(whole.status).toBe(403);
    expect(whole.body.errors[0].extensions).toEqual({ code: 'FORBIDDEN', status: 403 });
  });

  it('refuses a key without pets:read a pet, and answers it its own endpoint', async () => {
    const pet = await newPet();
    const { auth } = await api.newKey('free', {}, 'webhooks orders:read');
    const endpoint = await newEndpoint(auth);
    const reply = await api.gql(NODES, { ids: [pet.nodeId, globalId('WebhookEndpoint', endpoint.id)] }, auth);
    expect(reply.body.data.nodes).toEqual([null, { __typename: 'WebhookEndpoint', nodeId: globalId('WebhookEndpoint', endpoint.id) }]);
    expect(reply.body.errors).toEqual([error('FORBIDDEN', 403, ['nodes', 0], expect.stringMatching(/^This key may not read Pet records through Query.nodes: it needs the pets:read scope \(it has /))]);
  });

  it('answers another key\'s webhook endpoint NOT_FOUND, as webhookEndpoint does', async () => {
    const owner = await api.newKey('free');
    const other = await api.newKey('free');
    const endpoint = await newEndpoint(owner.auth);
    const direct = await api.gql('query($id: SafeInt!) { webhookEndpoint(endpointId: $id) { id } }', { id: endpoint.id }, other.auth);
    const { message } = direct.body.errors[0];
    expect(direct.body.errors[0].extensions).toEqual({ code: 'NOT_FOUND', status: 404 });
    const nodeId = globalId('WebhookEndpoint', endpoint.id);
    expect((await api.gql(NODE, { id: nodeId }, other.auth)).body).toEqual({ data: { node: null }, errors: [error('NOT_FOUND', 404, ['node'], message)] });
    expect((await api.gql(NODES, { ids: [nodeId] }, other.auth)).body).toEqual({ data: { nodes: [null] }, errors: [error('NOT_FOUND', 404, ['nodes', 0], message)] });
    expect((await api.gql(NODE, { id: nodeId }, owner.auth)).body.data.node.nodeId).toBe(nodeId);
  });

  it('costs one point per root field, as every root field', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 50, perDay: 1_000 });
    const reply = await api.gql('query($id: ID!) { a: node(id: $id) { nodeId } b: node(id: $id) { nodeId } nodes(ids: [$id, $id]) { nodeId } }', { id: globalId('Pet', 1) }, auth);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-ratelimit-remaining')).toBe('47');
  });

  it('estimates nodes(ids:) by its ids before it runs: past the node limit, 400 with no data', async () => {
    const pet = await newPet();
    // Each item at most 1 + 1 + 91 nodes (its nodeId, and three orders deep of pets and orders).
    const query = 'query($ids: [ID!]!) { a: nodes(ids: $ids) { ...Deep } b: nodes(ids: $ids) { ...Deep } } '
      + 'fragment Deep on Node { nodeId ... on Pet { orders { pet { orders { pet { orders { id } } } } } } }';
    const few = await api.gql(query, { ids: [pet.nodeId, pet.nodeId] });
    expect(few.status).toBe(200);
    expect(few.body.data.a).toEqual([{ nodeId: pet.nodeId, orders: [] }, { nodeId: pet.nodeId, orders: [] }]);
    const many = await api.gql(query, { ids: Array.from({ length: 60 }, () => pet.nodeId) });
    expect(many.status).toBe(400);
    expect(many.body).toEqual({ errors: [{ message: expect.stringMatching(/^The operation could return about 11,162 nodes .*; the limit is 10,000$/), extensions: { code: 'BAD_REQUEST', status: 400 } }] });
  });
});

describe('REST, unchanged by Relay', () => {
  it('serves no node route, and its records and OpenAPI document carry no nodeId nor Node', async () => {
    const pet = await newPet();
    expect(Object.keys((await api.get(`/v1/pets/${pet.id}`)).body).sort()).toEqual(['categoryId', 'id', 'name', 'status']);
    const doc = JSON.stringify((await api.get('/v1/openapi.json')).body);
    expect(doc).not.toMatch(/nodeId|"Node"|\/nodes?\b/);
    expect((await api.get('/v1/node')).status).toBe(404);
    expect((await api.get('/v1/nodes')).status).toBe(404);
  });
});

describe('Relay\'s persisted queries as trusted documents', () => {
  let persisted: RelayArtifacts;
  let registered: TestServer;
  beforeAll(async () => {
    persisted = await compileRelay({ persist: true });
    registered = await startServer({ env: { PERSISTED_DOCUMENTS_FILE: persisted.manifest!, GRAPHQL_DOCUMENTS: 'registered' } });
    await registered.post('/v1/pets', { name: 'Persisted', categoryId: 1 });
  }, 60_000);
  afterAll(async () => {
    await registered?.close();
    await persisted?.remove();
  });

  it('runs the operations relay-compiler persisted, sent by their id alone, where only registered documents run', async () => {
    expect(persisted.pets.params.text).toBeNull();
    expect(persisted.pets.params.id).toMatch(/^[0-9a-f]{64}$/);
    const { fetch, records } = relayEnvironment(registered.url, registered.headers);
    await fetch(persisted.pets, {});
    expect(records().filter((record) => record.__typename === 'Pet').map((record) => record.name)).toEqual(['Persisted']);
    // The same key's own text is refused: the manifest is the allow-list.
    const text = await registered.gql('{ pets(limit: 1) { id } }');
    expect(text.status).toBe(403);
    expect(text.body.errors[0].extensions).toEqual({ code: 'PERSISTED_DOCUMENT_REQUIRED', status: 403 });
  });
});
