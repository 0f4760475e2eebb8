import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

/**
 * An operation runs on graphql-js the first time and compiled (graphql-jit) from the second on: every
 * answer, success or error, must be the same either way. Each case is asked three times, on a server its
 * operation (a REST route, a GraphQL document) has never run on, so its first answer is graphql-js's
 * whatever ran before: cases of different operations share servers, two cases of one operation never do.
 */
const servers: { api: TestServer; id: number; ran: Set<string> }[] = [];
afterAll(async () => { for (const { api } of servers) await api.close(); });

/**
 * A server `operation` has not run on, with a pet to read (`id`), created by a document no case runs.
 * Compiled queries are kept per document, so any other operation may have run there.
 */
async function serverFor(operation: string): Promise<{ api: TestServer; id: number }> {
  let found = servers.find((s) => !s.ran.has(operation));
  if (!found) {
    const api = await startServer();
    const seed = await api.gql('mutation Seed { createPet(input: { name: "Compiled", categoryId: 3, status: sold }) { id } }');
    found = { api, id: seed.body.data.createPet.id as number, ran: new Set() };
    servers.push(found);
  }
  found.ran.add(operation);
  return found;
}

/** The route a REST path is served by: `GET /v1/pets/{id}` for `/v1/pets/7`. */
const route = (method: string, path: string) => `${method} ${path.split('?')[0]!.replace(/\/\d+$/, '/{id}')}`;

const thrice = async <T>(ask: () => Promise<T>): Promise<T[]> => [await ask(), await ask(), await ask()];

describe('REST routes answer the same before and after their operation is compiled', () => {
  it.each([
    ['a list', () => '/v1/pets?limit=2', 200],
    ['a filtered list', () => '/v1/pets?status=sold&limit=100', 200],
    ['a pet', (id: number) => `/v1/pets/${id}`, 200],
    ['an unknown pet', () => '/v1/pets/999999999', 404],
    ['a bad id', () => '/v1/pets/0', 400],
    ['a bad limit', () => '/v1/pets?limit=abc', 400],
    ['a bad status', () => '/v1/pets?status=lost', 400],
  ] as const)('GET %s: %s', async (_, path, status) => {
    const { api, id } = await serverFor(route('GET', path(1)));
    const [first, ...again] = (await thrice(() => api.get(path(id)))).map(({ status: s, body }) => ({ status: s, body }));
    expect(first!.status).toBe(status);
    for (const answer of again) expect(answer).toEqual(first);
  });

  it.each([
    ['a pet, its status defaulted', { name: 'Twice', categoryId: 1 }, 201],
    ['an unknown field', { name: 'X', categoryId: 1, colour: 'red' }, 400],
    ['a missing field', { categoryId: 1 }, 400],
    ['a null status', { name: 'X', categoryId: 1, status: null }, 400],
    ['a bad categoryId', { name: 'X', categoryId: 'one' }, 400],
    ['a blank name', { name: ' ', categoryId: 1 }, 400],
  ])('POST %s', async (_, body, status) => {
    const { api } = await serverFor(route('POST', '/v1/pets'));
    const answers = await thrice(() => api.post('/v1/pets', body));
    const [first, ...again] = answers.map(({ status: s, body: b }) => ({ status: s, body: { ...b, id: typeof b.id } }));
    expect(first!.status).toBe(status);
    for (const answer of again) expect(answer).toEqual(first);
  });
});

describe('GraphQL operations answer the same before and after they are compiled', () => {
  const LIST = 'query List($limit: Int, $status: PetStatus) { pets(limit: $limit, status: $status) { id name categoryId status } }';
  const PET = 'query Pet($id: SafeInt!) { pet(petId: $id) { id name } }';
  const CREATE = 'mutation Create($input: NewPet!) { createPet(input: $input) { name categoryId status } }';
  it.each([
    ['a list', LIST, () => ({ limit: 3, status: 'sold' }), 'data'],
    ['a bad limit', LIST, () => ({ limit: 0 }), 'BAD_REQUEST'],
    ['a bad enum value', LIST, () => ({ status: 'lost' }), 'BAD_REQUEST'],
    ['a pet', PET, (id: number) => ({ id }), 'data'],
    ['an unknown pet', PET, () => ({ id: 999999999 }), 'NOT_FOUND'],
    ['a missing variable', PET, () => ({}), 'BAD_REQUEST'],
    ['a created pet, its status defaulted', CREATE, () => ({ input: { name: 'G', categoryId: 2 } }), 'data'],
    ['an unknown input field', CREATE, () => ({ input: { name: 'G', categoryId: 2, colour: 'red' } }), 'BAD_REQUEST'],
    ['a mistyped input field', CREATE, () => ({ input: { name: 'G', categoryId: 'two' } }), 'BAD_REQUEST'],
    ['aliases, a fragment and __typename', '{ a: pets(limit: 1) { ...F } b: pets(limit: 2, status: sold) { ...F } } fragment F on Pet { __typename id }', () => ({}), 'data'],
  ] as const)('%s', async (_, query, variables, outcome) => {
    const { api, id } = await serverFor(query);
    const [first, ...again] = (await thrice(() => api.gql(query, variables(id)))).map(({ status, body }) => ({ status, body }));
    if (outcome === 'data') expect(first!.body.errors).toBeUndefined();
    else expect(first!.body.errors[0].extensions.code).toBe(outcome);
    for (const answer of again) expect(answer).toEqual(first);
  });
});
