import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step } from '../../src/pipeline/pipeline.js';
import { isPlainResponse } from '../../src/pipeline/response.js';
import { startServer, type TestServer } from '../support/server.js';

/**
 * The common single operation runs directly on yoga's parts (src/graphql/direct.ts); everything else on
 * yoga's handler. A batch of one is always yoga's, so each case is asked both ways and must get the
 * same result, errors, warnings and all. Which lane answered is read from the response each request
 * leaves the pipeline with: the direct lane answers with the service's plain response, yoga with its own.
 */
const lanes = new Map<string, 'direct' | 'yoga'>();
const observeLane: Step = {
  onResponse({ request, response }) {
    const id = request.headers.get('x-lane-probe');
    if (id) lanes.set(id, isPlainResponse(response) ? 'direct' : 'yoga');
  },
};

let api: TestServer;
let probe = 0;
beforeAll(async () => { api = await startServer({ steps: [observeLane] }); });
afterAll(async () => { await api.close(); });

/** A request tagged so its lane can be looked up once it is answered. */
async function ask(send: (headers: Record<string, string>) => Promise<{ status: number; headers: Headers; body: any }>) {
  const id = String(++probe);
  const reply = await send({ 'x-lane-probe': id });
  return { ...reply, lane: lanes.get(id) };
}

const PETS = 'query Pets($limit: Int, $status: PetStatus) { pets(limit: $limit, status: $status) { id name categoryId status } }';
const PET = 'query Pet($id: SafeInt!) { pet(petId: $id) { id name } }';
const CREATE = 'mutation Create($input: NewPet!) { createPet(input: $input) { name categoryId status } }';

describe('a single operation runs directly, answering as yoga would', () => {
  it.each([
    ['a list', PETS, { limit: 3, status: 'sold' }, 200],
    ['an empty variables object', '{ pets(limit: 1) { id } }', {}, 200],
    ['a field error: a bad limit, data null', PETS, { limit: 0 }, 200],
    ['a deprecated field: a warning', PET, { id: 1 }, 200],
    ['an unknown pet: NOT_FOUND, data null', PET, { id: 999999999 }, 200],
    ['a variable of the wrong type: a request error', PETS, { status: 'lost' }, 400],
    ['a missing variable: a request error', PET, {}, 400],
    ['a created pet', CREATE, { input: { name: 'Direct', categoryId: 2 } }, 200],
    ['an unknown input field', CREATE, { input: { name: 'D', categoryId: 2, colour: 'red' } }, 400],
  ] as const)('%s', async (_, query, variables, status) => {
    // Twice: the second run is compiled (graphql-jit), on both lanes.
    for (let run = 0; run < 2; run++) {
      const single = await ask((headers) => api.gql(query, variables, headers));
      const batched = await ask((headers) => api.post('/graphql', [{ query, variables }], headers));
      expect(single.lane).toBe('direct');
      expect(batched.lane).toBe('yoga');
      expect(single.status).toBe(status);
      // A mutation creates a pet each time; its selection leaves out what differs between the two (the id).
      expect(single.body).toEqual(batched.body[0]);
      expect(single.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
  });

  it('answers in the media type the Accept header asks for, as yoga does', async () => {
    for (const [accept, type] of [
      ['application/graphql-response+json', 'application/graphql-response+json'],
      ['application/graphql-response+json, application/json;q=0.9', 'application/graphql-response+json'],
      ['application/json, text/event-stream', 'application/json'],
      ['*/*', 'application/json'],
    ] as const) {
      const reply = await ask((headers) => api.gql('{ pets(limit: 1) { id } }', {}, { ...headers, accept }));
      expect({ accept, lane: reply.lane, type: reply.headers.get('content-type') }).toEqual({ accept, lane: 'direct', type: `${type}; charset=utf-8` });
    }
    // A request error in application/graphql-response+json keeps its 4xx.
    const refused = await ask((headers) => api.gql(PET, {}, { ...headers, accept: 'application/graphql-response+json' }));
    expect([refused.lane, refused.status, refused.body.errors[0].extensions.code]).toEqual(['direct', 400, 'BAD_REQUEST']);
  });

  it('runs a GET query directly, with the same answer as its POST', async () => {
    const query = encodeURIComponent('{ pets(limit: 2) { id name } }');
    const get = await ask((headers) => api.get(`/graphql?query=${query}`, headers));
    const post = await ask((headers) => api.gql('{ pets(limit: 2) { id name } }', undefined, headers));
    expect([get.lane, get.status]).toEqual(['direct', 200]);
    expect(get.body).toEqual(post.body);
  });

  it('counts each operation it runs in the metrics', async () => {
    const count = async () => {
      const text = (await api.get('/metrics')).body as string;
      return Number(text.match(/^animal_store_graphql_operations_total\{operation="DirectCounted",type="query"\} (\d+)$/m)?.[1] ?? 0);
    };
    const before = await count();
    const reply = await ask((headers) => api.gql('query DirectCounted { pets(limit: 1) { id } }', undefined, headers));
    expect(reply.lane).toBe('direct');
    expect(await count()).toBe(before + 1);
  });
});

describe('what only yoga answers goes to yoga', () => {
  it.each([
    ['an event stream', { accept: 'text/event-stream' }, '{ pets(limit: 1) { id } }'],
    ['multipart answers only', { accept: 'multipart/mixed' }, '{ pets(limit: 1) { id } }'],
    ['@defer', {}, '{ pets(limit: 1) { id ... @defer { name } } }'],
    ['an invalid document', {}, '{ pets(limit: 1) { nosuchfield } }'],
  ])('%s', async (_, extra, query) => {
    const reply = await ask((headers) => api.gql(query, undefined, { ...headers, ...extra }));
    expect(reply.lane).toBe('yoga');
  });

  it('a mutation sent by GET: 405, from yoga', async () => {
    const reply = await ask((headers) => api.get(`/graphql?query=${encodeURIComponent('mutation { createPet(input: { name: "G", categoryId: 1 }) { id } }')}`, headers));
    expect([reply.lane, reply.status]).toEqual(['yoga', 405]);
  });
});
