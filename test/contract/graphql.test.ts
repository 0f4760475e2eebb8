import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
beforeAll(async () => { api = await startServer(); });
afterAll(async () => { await api?.close(); });

const CREATE = 'mutation Create($input: NewPet!) { createPet(input: $input) { id name categoryId status } }';
/** What every operation that selects the deprecated Query.pet is told, beside its data. */
const PET_DEPRECATED = {
  code: 'DEPRECATED_FIELD', field: 'Query.pet', sunset: '2030-12-05T00:00:00Z',
  message: 'Query.pet is deprecated and will be removed on 2030-12-05: Use `pets` with a `status` filter instead. This field will be removed on 2030-12-05.',
};
const LIST = 'query List($limit: Int, $status: PetStatus) { pets(limit: $limit, status: $status) { id name categoryId status } }';

describe('POST /graphql', () => {
  it('creates a pet and lists it, the same records REST serves', async () => {
    const created = await api.gql(CREATE, { input: { name: 'Gql', categoryId: 4 } });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ data: { createPet: { id: expect.any(Number), name: 'Gql', categoryId: 4, status: 'available' } } });
    const pet = created.body.data.createPet;
    const listed = await api.gql(LIST, { limit: 100 });
    expect(listed.body.data.pets).toContainEqual(pet);
    expect((await api.get(`/v1/pets/${pet.id}`)).body).toEqual(pet);
  });

  it('carries ids and categoryIds above 2^31 as JSON numbers', async () => {
    const big = 2 ** 40 + 7;
    const res = await api.gql(CREATE, { input: { name: 'Big', categoryId: big, status: 'sold' } });
    expect(res.body.data.createPet.categoryId).toBe(big);
    const text = await (await fetch(`${api.url}/graphql`, {
      method: 'POST', headers: { ...api.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ pets(status: sold) { categoryId } }` }),
    })).text();
    expect(text).toContain(`"categoryId":${big}`);
  });

  it('accepts SafeInt literals in the query text, and refuses 2^53', async () => {
    const ok = await api.gql('mutation { createPet(input: {name: "Lit", categoryId: 9007199254740991}) { categoryId } }');
    expect(ok.body).toEqual({ data: { createPet: { categoryId: 9007199254740991 } } });
    const bad = await api.gql('mutation { createPet(input: {name: "Lit", categoryId: 9007199254740992}) { id } }');
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
  });

  it('refuses an operation name the document does not define with 400 in the status line and the body', async () => {
    const res = await api.post('/graphql', { query: LIST, operationName: 'ListPets' });
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0]).toMatchObject({ message: 'The document has no operation named "ListPets"', extensions: { code: 'BAD_REQUEST', status: 400 } });
  });

  it('defaults status to available and limit to 20', async () => {
    const fresh = await startServer();
    try {
      for (let i = 0; i < 22; i += 1) await fresh.gql(CREATE, { input: { name: `P${i}`, categoryId: 1 } });
      const res = await fresh.gql('{ pets { id status } }');
      expect(res.body.data.pets).toHaveLength(20);
      expect(new Set(res.body.data.pets.map((p: { status: string }) => p.status))).toEqual(new Set(['available']));
      const ids = res.body.data.pets.map((p: { id: number }) => p.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    } finally {
      await fresh.close();
    }
  });

  it('fetches one pet with the deprecated pet(petId:) field', async () => {
    const { body } = await api.gql(CREATE, { input: { name: 'One', categoryId: 2 } });
    const res = await api.gql('query($id: SafeInt!) { pet(petId: $id) { id name } }', { id: body.data.createPet.id });
    expect(res.body).toEqual({ data: { pet: { id: body.data.createPet.id, name: 'One' } }, extensions: { warnings: [PET_DEPRECATED] } });
  });

  it('answers NOT_FOUND for a pet that does not exist', async () => {
    const res = await api.gql('{ pet(petId: 123456789) { id } }');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: { pet: null },
      errors: [{ message: 'Pet 123456789 not found', locations: [{ line: 1, column: 3 }], path: ['pet'], extensions: { code: 'NOT_FOUND', status: 404 } }],
      extensions: { warnings: [PET_DEPRECATED] },
    });
  });

  it('answers a field error beside "data": null with 200, in the media type asked for (decisions.md)', async () => {
    const res = await fetch(`${api.url}/graphql`, {
      method: 'POST',
      headers: { ...api.headers, 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query: '{ pets(limit: 0) { id } }' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
    expect(await res.json()).toEqual({
      data: null,
      errors: [{
        message: '"limit" must be an integer from 1 to 100, got 0', locations: [{ line: 1, column: 3 }], path: ['pets'],
        extensions: { code: 'BAD_REQUEST', status: 400 },
      }],
    });
  });

  it.each([
    ['limit 0', LIST, { limit: 0 }, 'limit'],
    ['limit 101', LIST, { limit: 101 }, 'limit'],
    ['a bogus status', LIST, { status: 'bogus' }, 'status'],
    ['a string categoryId', CREATE, { input: { name: 'x', categoryId: '5' } }, 'categoryId'],
    ['an unknown field', CREATE, { input: { name: 'x', categoryId: 5, id: 3 } }, '"id"'],
    ['a missing name', CREATE, { input: { categoryId: 5 } }, '"name"'],
    ['a name of 256 characters', CREATE, { input: { name: 'x'.repeat(256), categoryId: 5 } }, '"name"'],
    ['a blank name', CREATE, { input: { name: '   ', categoryId: 5 } }, '"name"'],
  ])('rejects %s with extensions.code BAD_REQUEST', async (_case, query, variables, mentions) => {
    const res = await api.gql(query, variables);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ message: expect.stringContaining(mentions), extensions: { code: 'BAD_REQUEST', status: 400 } });
  });

  it('gives syntax and validation errors a code as well', async () => {
    const syntax = await api.gql('{ pets { id ');
    expect(syntax.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST' });
    const unknown = await api.gql('{ pets { id color } }');
    expect(unknown.body.errors[0]).toMatchObject({ message: expect.stringContaining('color'), extensions: { code: 'BAD_REQUEST' } });
  });

  it('serves queries over GET too, and refuses a mutation over GET', async () => {
    const query = await fetch(`${api.url}/graphql?query=${encodeURIComponent('{ pets(limit: 1) { id } }')}`, {
      headers: { ...api.headers, accept: 'application/json' },
    });
    expect(query.status).toBe(200);
    expect(await query.json()).toEqual({ data: { pets: expect.any(Array) } });
    const mutation = await fetch(`${api.url}/graphql?query=${encodeURIComponent('mutation { createPet(input: {name: "x", categoryId: 1}) { id } }')}`, {
      headers: { ...api.headers, accept: 'application/json' },
    });
    expect(mutation.status).toBe(405);
    expect(mutation.headers.get('allow')).toBe('POST');
    expect((await mutation.json()).errors[0].extensions).toEqual({ code: 'METHOD_NOT_ALLOWED', status: 405 });
  });
});

describe('introspection', () => {
  it('marks Query.pet deprecated, with the removal date', async () => {
    const res = await api.gql('{ __type(name: "Query") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }');
    const pet = res.body.data.__type.fields.find((f: { name: string }) => f.name === 'pet');
    expect(pet).toEqual({ name: 'pet', isDeprecated: true, deprecationReason: expect.stringContaining('2030-12-05') });
    const pets = res.body.data.__type.fields.find((f: { name: string }) => f.name === 'pets');
    expect(pets.isDeprecated).toBe(false);
  });

  it('offers exactly the PetStatus values of the spec', async () => {
    const res = await api.gql('{ __type(name: "PetStatus") { enumValues { name } } }');
    expect(res.body.data.__type.enumValues.map((v: { name: string }) => v.name)).toEqual(['available', 'pending', 'sold']);
  });
});

describe('GET /graphql in a browser', () => {
  it('builds the page on its first request: requests that come meanwhile get the same page, gzipped or not', async () => {
    const { request } = await import('node:http');
    const url = new URL(`${api.url}/graphql`);
    // fetch asks for gzip and unzips; this client does not accept it.
    const plain = new Promise<{ status?: number; encoding?: string; policy?: string; html: string }>((resolve, reject) => {
      request({ host: url.hostname, port: url.port, path: url.pathname, headers: { accept: 'text/html' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({
          status: res.statusCode, encoding: res.headers['content-encoding'], policy: res.headers['content-security-policy'] as string,
          html: Buffer.concat(chunks).toString('utf8'),
        }));
      }).on('error', reject).end();
    });
    const browsers = await Promise.all([1, 2, 3].map(async () => {
      const res = await fetch(`${api.url}/graphql`, { headers: { accept: 'text/html' } });
      return { status: res.status, policy: res.headers.get('content-security-policy'), html: await res.text() };
    }));
    const unzipped = await plain;
    expect(unzipped).toMatchObject({ status: 200, encoding: undefined });
    expect(unzipped.html).toContain('Animal Store GraphiQL');
    for (const answer of browsers) expect(answer).toEqual({ status: 200, policy: unzipped.policy, html: unzipped.html });
  });

  it('serves a self-contained GraphiQL page: no CDN, an Authorization header to complete', async () => {
    const res = await fetch(`${api.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('Animal Store GraphiQL');
    expect(html).toContain('Authorization');
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)="https?:/);
    expect(html).not.toMatch(/unpkg\.com|jsdelivr|raw\.githubusercontent/);
  });
});
