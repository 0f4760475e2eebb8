import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globalId } from '../../src/domain/global-ids.js';
import { call } from '../support/http.js';
import { newPetOn, placedOrderOn } from '../support/records.js';
import { startServer, type TestServer } from '../support/server.js';

/** The subgraph a router composes (docs/frontend.md, "Composing the service into a supergraph"). */
let api: TestServer;
beforeAll(async () => {
  api = await startServer();
});
afterAll(async () => {
  await api?.close();
});

const committed = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const subgraph = (query: string, variables?: object, headers: Record<string, string> = api.headers) =>
  call(`${api.url}/graphql/subgraph`, { method: 'POST', json: { query, variables }, headers });

const ENTITIES = 'query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Pet { id name nodeId } ... on Order { id petId } } }';
const error = (code: string, status: number, path: (string | number)[], message: unknown = expect.any(String)) =>
  ({ message, path, locations: expect.any(Array), extensions: { code, status } });

describe('the federation subgraph at /graphql/subgraph', () => {
  it('answers _service { sdl } with schema/subgraph.graphql: @link to federation 2.6, Pet and Order keyed by id and nodeId', async () => {
    const reply = await subgraph('{ _service { sdl } }');
    expect(reply.status).toBe(200);
    expect(`${reply.body.data._service.sdl}\n`).toBe(committed('schema/subgraph.graphql'));
    expect(reply.body.data._service.sdl).toMatch(/type Pet implements Node\s+@key\(fields: "id"\)\s+@key\(fields: "nodeId"\)/);
  });

  it('leaves /graphql as it was: no _service, no _entities, its SDL the committed one', async () => {
    const reply = await api.gql('{ _service { sdl } }');
    expect(reply.status).toBe(400);
    const types = (await api.gql('{ __schema { types { name } } }')).body.data.__schema.types.map((t: { name: string }) => t.name);
    expect(types).not.toContain('_Entity');
    expect(types).not.toContain('_Any');
    expect(committed('schema/schema.graphql')).not.toMatch(/@key|_entities|_Service/);
  });

  it('resolves pets and orders by id and by nodeId, in the order sent, a missing one null without an error', async () => {
    const pet = await newPetOn(api, 'Ada');
    const order = await placedOrderOn(api);
    const reply = await subgraph(ENTITIES, { r: [
      { __typename: 'Order', id: order.id },
      { __typename: 'Pet', id: pet.id },
      { __typename: 'Pet', id: 9_000_000_000 },
      { __typename: 'Pet', nodeId: globalId('Pet', pet.id) },
      { __typename: 'Order', nodeId: globalId('Order', order.id), extra: 'ignored' },
    ] });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ data: { _entities: [
      { __typename: 'Order', id: order.id, petId: order.petId },
      { __typename: 'Pet', id: pet.id, name: 'Ada', nodeId: globalId('Pet', pet.id) },
      null,
      { __typename: 'Pet', id: pet.id, name: 'Ada', nodeId: globalId('Pet', pet.id) },
      { __typename: 'Order', id: order.id, petId: order.petId },
    ] } });
  });

  it('answers a router\'s repeated _entities call from the response cache, apart from /graphql\'s entries, and drops it when the record changes', async () => {
    const pet = await newPetOn(api, 'Cached');
    const query = `query($r: [_Any!]!) { _entities(representations: $r) { ... on Pet { id name } } }`;
    const variables = { r: [{ __typename: 'Pet', id: pet.id }] };
    await subgraph(query, variables);
    const hit = await subgraph(query, variables);
    expect(hit.headers.get('cache-status')).toBe('animal-store; hit');
    expect(hit.body).toEqual({ data: { _entities: [{ id: pet.id, name: 'Cached' }] } });
    expect((await api.patch(`/v1/pets/${pet.id}`, { name: 'Renamed' })).status).toBe(200);
    const after = await subgraph(query, variables);
    expect(after.body).toEqual({ data: { _entities: [{ id: pet.id, name: 'Renamed' }] } });
  });

  it('never hands one caller\'s kept _entities answer to another of other scopes: an order kept for a full key stays FORBIDDEN to a pets:read key', async () => {
    const order = await placedOrderOn(api);
    const query = 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Order { id petId } } }';
    const variables = { r: [{ __typename: 'Order', id: order.id }] };
    const { auth: full } = await api.newKey('enterprise', { perMinute: 100_000, perDay: 1_000_000 });
    const { auth: reader } = await api.newKey('enterprise', { perMinute: 100_000, perDay: 1_000_000 }, 'pets:read');
    await subgraph(query, variables, full);
    const kept = await subgraph(query, variables, full);
    expect(kept.headers.get('cache-status')).toBe('animal-store; hit');
    expect(kept.body).toEqual({ data: { _entities: [{ id: order.id, petId: order.petId }] } });
    const refused = await subgraph(query, variables, reader);
    expect(refused.body.data).toEqual({ _entities: [null] });
    expect(refused.body.errors).toEqual([error('FORBIDDEN', 403, ['_entities', 0])]);
  });

  it('answers a bad representation null with BAD_REQUEST at its place, the others beside it', async () => {
    const pet = await newPetOn(api);
    const bad = [
      { __typename: 'Query' }, { __typename: 'WebhookEndpoint', id: 1 }, { __typename: '__proto__', id: 1 }, { id: 1 },
      { __typename: 'Pet' }, { __typename: 'Pet', id: '1' }, { __typename: 'Pet', id: 1.5 }, { __typename: 'Pet', id: 0 },
      { __typename: 'Pet', nodeId: globalId('Order', 1) }, { __typename: 'Pet', nodeId: 'nope' }, { __typename: 'Pet', nodeId: 7 },
      'Pet', 5, [], true,
    ];
    const reply = await subgraph(ENTITIES, { r: [{ __typename: 'Pet', id: pet.id }, ...bad] });
    expect(reply.status).toBe(200);
    expect(reply.body.data._entities).toEqual([expect.objectContaining({ id: pet.id }), ...bad.map(() => null)]);
    expect(reply.body.errors).toEqual(bad.map((_, i) => error('BAD_REQUEST', 400, ['_entities', i + 1], expect.stringContaining(`representations[${i + 1}]`))));
  });

  it('reads a type only with its scope: a pets:read key gets its pets, and each order null with FORBIDDEN', async () => {
    const pet = await newPetOn(api);
    const order = await placedOrderOn(api);
    const { auth } = await api.newKey('pro', {}, 'pets:read');
    const reply = await subgraph(ENTITIES, { r: [{ __typename: 'Pet', id: pet.id }, { __typename: 'Order', id: order.id }, { __typename: 'Order', id: 9_000_000 }] }, auth);
    expect(reply.status).toBe(200);
    expect(reply.body.data._entities).toEqual([expect.objectContaining({ __typename: 'Pet', id: pet.id }), null, null]);
    const refusal = 'This key may not read Order records through Query._entities: it needs the orders:read scope (it has pets:read)';
    expect(reply.body.errors).toEqual([error('FORBIDDEN', 403, ['_entities', 1], refusal), error('FORBIDDEN', 403, ['_entities', 2], refusal)]);
    // A field that needs a scope is refused before execution, as on /graphql.
    const nested = await subgraph('query($r: [_Any!]!) { _entities(representations: $r) { ... on Pet { orders { id } } } }', { r: [{ __typename: 'Pet', id: pet.id }] }, auth);
    expect(nested.status).toBe(403);
    expect(nested.body.errors[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' }, message: expect.stringContaining('Pet.orders') });
  });

  it('refuses a call without a key as /graphql does: 401 UNAUTHENTICATED with the limit headers', async () => {
    const reply = await subgraph('{ _service { sdl } }', undefined, {});
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(reply.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect(reply.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'UNAUTHENTICATED', status: 401 } }] });
  });

  it('refuses more than 500 representations whole, 400 before anything is read; 500 run', async () => {
    const pet = await newPetOn(api);
    const many = (n: number) => Array.from({ length: n }, () => ({ __typename: 'Pet', id: pet.id }));
    const over = await subgraph(ENTITIES, { r: many(501) });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ errors: [{
      message: '"representations" holds 501 representations; the limit is 500 per _entities field', extensions: { code: 'BAD_REQUEST', status: 400 },
    }] });
    const literal = await subgraph(`{ _entities(representations: [${many(501).map(() => `{__typename: "Pet", id: ${pet.id}}`).join(',')}]) { __typename } }`);
    expect(literal.status).toBe(400);
    const full = await subgraph(ENTITIES, { r: many(500) });
    expect(full.status).toBe(200);
    expect(full.body.data._entities).toHaveLength(500);
    expect(full.body.errors).toBeUndefined();
  });

  it('costs a point per 100 representations (as nodes(ids:) does), at least one', async () => {
    const pet = await newPetOn(api);
    const { auth } = await api.newKey('enterprise', { perMinute: 50, perDay: 1_000 });
    const representations = (n: number) => Array.from({ length: n }, () => ({ __typename: 'Pet', id: pet.id }));
    const one = await subgraph(ENTITIES, { r: representations(100) }, auth);
    expect(one.headers.get('x-ratelimit-remaining')).toBe('49');
    const three = await subgraph(ENTITIES, { r: representations(201) }, auth);
    expect(three.headers.get('x-ratelimit-remaining')).toBe('46');
    const none = await subgraph(ENTITIES, { r: [] }, auth);
    expect(none.body).toEqual({ data: { _entities: [] } });
    expect(none.headers.get('x-ratelimit-remaining')).toBe('45');
  });

  it('counts every representation against the node limit before it runs', async () => {
    const small = await startServer({ env: { GRAPHQL_MAX_NODES: '10000' } });
    try {
      const pet = await newPetOn(small);
      const send = (n: number) => call(`${small.url}/graphql/subgraph`, {
        method: 'POST', headers: small.headers,
        json: { query: 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Pet { id name status categoryId orders { id pet { orders { id } } } } } }', variables: { r: Array.from({ length: n }, () => ({ __typename: 'Pet', id: pet.id })) } },
      });
      // Each item 1 + 4 + 31 (its orders, three assumed, each with a pet and its three orders).
      expect((await send(250)).status).toBe(200);
      const over = await send(300);
      expect(over.status).toBe(400);
      expect(over.body.errors[0].message).toMatch(/^The operation could return about 10,801 nodes/);
    } finally {
      await small.close();
    }
  });

  it('runs the rest of the schema as /graphql does, and serves no GraphiQL page of its own', async () => {
    const pet = await newPetOn(api, 'Same');
    const query = 'query($id: SafeInt!) { pets(limit: 100) { id } pet(petId: $id) { name } }';
    const [ours, theirs] = await Promise.all([subgraph(query, { id: pet.id }), api.gql(query, { id: pet.id })]);
    expect(ours.status).toBe(200);
    expect(ours.body).toEqual(theirs.body);
    expect((await call(`${api.url}/graphql/subgraph`, { headers: { ...api.headers, accept: 'text/html' } })).headers.get('content-type')).not.toMatch(/html/);
  });
});
