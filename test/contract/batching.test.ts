import { ApolloClient, InMemoryCache, gql } from '@apollo/client';
import { BatchHttpLink } from '@apollo/client/link/batch-http';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Reply } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

/**
 * Batching (decisions.md, "GraphQL operations"): a JSON array of operations, at most GRAPHQL_BATCH_LIMIT,
 * each checked as one, its points and node estimates summed, refused whole when any is refused, answered
 * as an array of results in order.
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const PETS = '{ pets(limit: 2) { id name } }';
const COUNT = 'query Two { a: pets(limit: 1) { id } b: pets(limit: 1) { id } }';
/** About 5,400 nodes: two of them pass GRAPHQL_MAX_NODES=10000 together, not alone. */
const WIDE = `{ ${['a', 'b', 'c'].map((alias) => `${alias}: pets(limit: 100) { id orders { id pet { id name } } }`).join(' ')} }`;
const MANIFEST_DOC = 'query ManifestPets { pets(limit: 1) { id } }';

let api: TestServer;
beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'manifest-')), 'persisted-documents.json');
  writeFileSync(file, JSON.stringify({ [sha256(MANIFEST_DOC)]: MANIFEST_DOC }));
  api = await startServer({ env: { GRAPHQL_BATCH_LIMIT: '4', GRAPHQL_MAX_NODES: '10000', PERSISTED_DOCUMENTS_FILE: file } });
});
afterAll(async () => { await api?.close(); });

const batch = (json: unknown, headers: Record<string, string> = api.headers) =>
  call(`${api.url}/graphql`, { method: 'POST', json, headers: { ...headers, accept: 'application/graphql-response+json' } });
const remaining = (reply: Reply) => Number(reply.headers.get('x-ratelimit-remaining'));

function expectRefusal(reply: Reply, status: number, code: string, message: unknown) {
  expect(reply.status).toBe(status);
  expect(reply.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
  expect(reply.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  expect(reply.body).toEqual({ errors: [{ message, extensions: { code, status } }] });
}

describe('POST /graphql with a batch', () => {
  it('answers each operation, in order, as a JSON array; the points are the sum of the operations\'', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 100, perDay: 1_000 });
    const reply = await batch([{ query: PETS }, { query: COUNT }, { query: 'query One($l: Int) { pets(limit: $l) { id } }', variables: { l: 1 } }], auth);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([{ data: { pets: expect.any(Array) } }, { data: { a: expect.any(Array), b: expect.any(Array) } }, { data: { pets: expect.any(Array) } }]);
    expect(remaining(reply)).toBe(100 - 4);
  });

  it('runs persisted documents inside a batch: a documentId, a persistedQuery hash beside a text', async () => {
    const reply = await batch([
      { documentId: `sha256:${sha256(MANIFEST_DOC)}` },
      { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(MANIFEST_DOC) } } },
      { query: PETS },
    ]);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([{ data: { pets: expect.any(Array) } }, { data: { pets: expect.any(Array) } }, { data: { pets: expect.any(Array) } }]);
  });

  it('answers an operation that fails validation in its own result, with its code, and runs the others', async () => {
    const reply = await batch([{ query: '{ pets { id color } }' }, { query: PETS }]);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([
      { errors: [{ message: expect.stringContaining('color'), locations: expect.any(Array), extensions: { code: 'BAD_REQUEST', status: 400 } }] },
      { data: { pets: expect.any(Array) } },
    ]);
  });

  it('refuses a batch past GRAPHQL_BATCH_LIMIT whole: 400 BAD_REQUEST, the refusal\'s one point taken, none of its operations\'', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 100, perDay: 1_000 });
    const refused = await batch(Array.from({ length: 5 }, () => ({ query: COUNT })), auth);
    expectRefusal(refused, 400, 'BAD_REQUEST', 'The batch has 5 operations; the limit is 4 per request');
    expect(remaining(refused)).toBe(99);
  });

  it('refuses an empty batch: 400 BAD_REQUEST', async () => {
    expectRefusal(await batch([]), 400, 'BAD_REQUEST', 'The batch is empty: send at least one operation in the array');
  });

  it('refuses a subscription in a batch: 400 BAD_REQUEST', async () => {
    expectRefusal(await batch([{ query: PETS }, { query: 'subscription { petChanged { id } }' }]), 400, 'BAD_REQUEST',
      'Operation 2 of the batch of 2 is a subscription: subscribe in a request of its own');
  });

  it('refuses the whole batch when one operation breaks a limit, naming it', async () => {
    const deep = '{ pets(limit: 1) { orders { pet { orders { pet { orders { pet { orders { id } } } } } } } } }';
    expectRefusal(await batch([{ query: PETS }, { query: deep }]), 400, 'BAD_REQUEST', 'Operation 2 of the batch of 2: The operation is 9 levels deep; the limit is 8');
    expectRefusal(await batch([{ query: PETS }, 'x']), 400, 'BAD_REQUEST',
      'Operation 2 of the batch of 2: The request body must be a JSON object: {"query": "...", "variables": {...}}, or an array of them');
    expectRefusal(await batch([{ extensions: { persistedQuery: { version: 1, sha256Hash: sha256('unknown') } } }]), 404, 'PERSISTED_QUERY_NOT_FOUND',
      'Operation 1 of the batch of 1: PersistedQueryNotFound');
  });

  it('holds the node limit over the whole batch: the sum of the estimates', async () => {
    expect((await batch([{ query: WIDE }])).status).toBe(200);
    expectRefusal(await batch([{ query: WIDE }, { query: WIDE }]), 400, 'BAD_REQUEST', expect.stringMatching(/^The operation could return about 10,\d{3} nodes .*the limit is 10,000$/));
  });

  it('checks the scopes over every operation: 403 FORBIDDEN when one needs what the key lacks', async () => {
    const { auth } = await api.newKey('free', {}, 'pets:read');
    const reply = await batch([{ query: PETS }, { query: '{ orders(first: 1) { edges { node { id } } } }' }], auth);
    expectRefusal(reply, 403, 'FORBIDDEN', expect.stringMatching(/^This key may not select Query\.orders: it needs the orders:read scope/));
  });

  it('tells of the deprecated fields of every operation: Deprecation and Sunset headers, a warning in each result', async () => {
    const reply = await batch([{ query: PETS }, { query: '{ pet(petId: 1) { id } }' }]);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(reply.headers.get('sunset')).toBeTruthy();
    const [first, second] = reply.body as { extensions?: { warnings: { code: string }[] } }[];
    expect(first!.extensions?.warnings).toEqual([expect.objectContaining({ code: 'DEPRECATED_FIELD', field: 'Query.pet' })]);
    expect(second!.extensions?.warnings).toEqual([expect.objectContaining({ code: 'DEPRECATED_FIELD', field: 'Query.pet' })]);
  });

  it('refuses an Idempotency-Key on a batch with a mutation: 400 BAD_REQUEST; a batch of queries ignores it, as a query does', async () => {
    const create = { query: 'mutation { createPet(input: { name: "Batched", categoryId: 1 }) { id } }' };
    const refused = await batch([{ query: PETS }, create], { ...api.headers, 'idempotency-key': 'batch-1' });
    expectRefusal(refused, 400, 'BAD_REQUEST', 'Idempotency-Key applies to one operation: send each mutation that needs it in a request of its own, not in a batch');
    expect((await batch([{ query: PETS }, { query: PETS }], { ...api.headers, 'idempotency-key': 'batch-2' })).status).toBe(200);
  });
});

describe('Apollo Client 4 with BatchHttpLink', () => {
  it('sends the operations of one tick in one request and reads each result', async () => {
    const bodies: unknown[] = [];
    const client = new ApolloClient({
      cache: new InMemoryCache(),
      link: new BatchHttpLink({
        uri: `${api.url}/graphql`, headers: api.headers, batchMax: 4, batchInterval: 20,
        fetch: async (input, init) => {
          bodies.push(JSON.parse(String(init?.body)));
          return fetch(input, init);
        },
      }),
    });
    const [pets, two, created] = await Promise.all([
      client.query({ query: gql`query BatchedPets { pets(limit: 2) { id name } }` }),
      client.query({ query: gql`query BatchedTwo { a: pets(limit: 1) { id } b: pets(limit: 1) { id } }` }),
      client.mutate({ mutation: gql`mutation BatchedCreate { createPet(input: { name: "From a batch", categoryId: 1 }) { id name } }` }),
    ]);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toHaveLength(3);
    expect(pets.data).toEqual({ pets: expect.any(Array) });
    expect(two.data).toEqual({ a: expect.any(Array), b: expect.any(Array) });
    expect(created.data).toEqual({ createPet: { __typename: 'Pet', id: expect.any(Number), name: 'From a batch' } });
  });

  it('fails each operation of a refused batch with the refusal, its code readable (the answer is one error, not an array)', async () => {
    const client = new ApolloClient({ cache: new InMemoryCache(), link: new BatchHttpLink({ uri: `${api.url}/graphql`, headers: api.headers, batchMax: 10, batchInterval: 20 }) });
    const queries = Array.from({ length: 5 }, (_, i) => client.query({ query: gql(`query Many${i} { pets(limit: 1) { id } }`) }).then(() => undefined, (error: unknown) => error));
    const errors = await Promise.all(queries);
    for (const error of errors) {
      expect(error).toMatchObject({ result: [{ errors: [{ message: 'The batch has 5 operations; the limit is 4 per request', extensions: { code: 'BAD_REQUEST', status: 400 } }] }] });
    }
  });
});
