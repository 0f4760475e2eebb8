import { ApolloClient, HttpLink, InMemoryCache, gql as apolloGql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { Client, fetchExchange, gql as urqlGql } from '@urql/core';
import { persistedExchange } from '@urql/exchange-persisted';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshStore, type Store } from '../support/backend.js';
import { call, type Reply } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

/**
 * Persisted documents (decisions.md, "GraphQL operations"): automatic persisted queries (Apollo's
 * protocol, shared by every instance) and trusted documents (a manifest as GraphQL Codegen's client preset
 * and the Relay compiler write it), by `documentId` or hash, and the allow-list mode that runs only those.
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const PETS = '{ pets(limit: 2) { id name } }';
/** A document no other test sends: its hash is unknown until this test registers it. */
const fresh = () => `query Fresh${randomBytes(6).toString('hex')} { pets(limit: 1) { id } }`;
const persisted = (text: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(text) } });

function expectRefusal(reply: Reply, status: number, code: string, message: unknown = expect.any(String)) {
  expect(reply.status).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/(graphql-response\+)?json; charset=utf-8$/);
  expect(reply.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  expect(reply.body).toEqual({ errors: [{ message, extensions: { code, status } }] });
}

const get = (api: TestServer, params: Record<string, unknown>, headers = api.headers) => {
  const search = new URLSearchParams(Object.entries(params).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]));
  return call(`${api.url}/graphql?${search}`, { headers: { ...headers, accept: 'application/graphql-response+json' } });
};
const post = (api: TestServer, json: unknown, headers = api.headers) =>
  call(`${api.url}/graphql`, { method: 'POST', json, headers: { ...headers, accept: 'application/graphql-response+json' } });

describe('automatic persisted queries', () => {
  let api: TestServer;
  beforeAll(async () => { api = await startServer({ env: { PERSISTED_QUERIES_PER_KEY: '3' } }); });
  afterAll(async () => { await api?.close(); });

  it('answers an unknown hash 404 PERSISTED_QUERY_NOT_FOUND, as Apollo\'s and urql\'s links expect, on POST and GET', async () => {
    const text = fresh();
    expectRefusal(await post(api, { extensions: persisted(text) }), 404, 'PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound');
    expectRefusal(await get(api, { extensions: persisted(text) }), 404, 'PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound');
  });

  it('registers text sent with its hash, then runs the hash alone, on POST and GET', async () => {
    const text = fresh();
    const first = await post(api, { query: text, extensions: persisted(text) });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ data: { pets: expect.any(Array) } });
    expect((await post(api, { extensions: persisted(text) })).body).toEqual(first.body);
    expect((await get(api, { extensions: persisted(text) })).body).toEqual(first.body);
    // A documentId of the proposal names the same registered document.
    expect((await post(api, { documentId: `sha256:${sha256(text)}` })).body).toEqual(first.body);
  });

  it('refuses a hash that is not its text\'s: 400 BAD_REQUEST, and registers nothing', async () => {
    const text = fresh();
    const wrong = { persistedQuery: { version: 1, sha256Hash: sha256(`${text} `) } };
    expectRefusal(await post(api, { query: text, extensions: wrong }), 400, 'BAD_REQUEST',
      `"extensions.persistedQuery.sha256Hash" is ${sha256(`${text} `)}, but the SHA-256 of "query" is ${sha256(text)}: hash the exact text sent`);
    expectRefusal(await post(api, { extensions: wrong }), 404, 'PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound');
  });

  it.each([
    ['version 2', { persistedQuery: { version: 2, sha256Hash: sha256(PETS) } }],
    ['no version', { persistedQuery: { sha256Hash: sha256(PETS) } }],
    ['a hash in capitals', { persistedQuery: { version: 1, sha256Hash: sha256(PETS).toUpperCase() } }],
    ['a short hash', { persistedQuery: { version: 1, sha256Hash: 'abc' } }],
    ['a hash that is a number', { persistedQuery: { version: 1, sha256Hash: 5 } }],
    ['a string', { persistedQuery: 'yes' }],
  ])('refuses a malformed persistedQuery (%s): 400 BAD_REQUEST', async (_case, extensions) => {
    expectRefusal(await post(api, { query: PETS, extensions }), 400, 'BAD_REQUEST',
      '"extensions.persistedQuery" must be {"version": 1, "sha256Hash": "<64 lowercase hex digits>"}');
  });

  it.each([
    ['a number', 5], ['sha256: and too few digits', 'sha256:abc'], ['a space', 'my document'], ['an empty string', ''],
    ['an object', { id: 'x' }], ['129 characters', 'a'.repeat(129)],
  ])('refuses a malformed documentId (%s): 400 BAD_REQUEST', async (_case, documentId) => {
    expectRefusal(await post(api, { documentId }), 400, 'BAD_REQUEST', expect.stringMatching(/^"documentId" must be "sha256:" and 64 lowercase hex digits/));
  });

  it('refuses a documentId sent with a query: 400 BAD_REQUEST', async () => {
    expectRefusal(await post(api, { query: PETS, documentId: `sha256:${sha256(PETS)}` }), 400, 'BAD_REQUEST', 'Send "query" or "documentId", not both');
  });

  it('registers at most PERSISTED_QUERIES_PER_KEY new documents per key: past it the text runs, with a warning, unregistered', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 1_000, perDay: 10_000 });
    const texts = [fresh(), fresh(), fresh(), fresh()];
    for (const text of texts.slice(0, 3)) expect((await post(api, { query: text, extensions: persisted(text) }, auth)).body).not.toHaveProperty('extensions');
    const over = await post(api, { query: texts[3], extensions: persisted(texts[3]!) }, auth);
    expect(over.status).toBe(200);
    expect(over.body).toEqual({
      data: { pets: expect.any(Array) },
      extensions: { warnings: [{ code: 'PERSISTED_QUERY_NOT_REGISTERED', message: `The document ${sha256(texts[3]!)} was not registered: this key has registered as many documents as it may for now; it ran from its text`, sha256Hash: sha256(texts[3]!) }] },
    });
    expectRefusal(await post(api, { extensions: persisted(texts[3]!) }, auth), 404, 'PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound');
    // A document already registered (by any key) costs no registration.
    expect((await post(api, { query: texts[0], extensions: persisted(texts[0]!) }, auth)).body).not.toHaveProperty('extensions');
    // Another key has its own quota.
    const other = await api.newKey('free');
    expect((await post(api, { query: texts[3], extensions: persisted(texts[3]!) }, other.auth)).body).not.toHaveProperty('extensions');
    expect((await post(api, { extensions: persisted(texts[3]!) }, auth)).status).toBe(200);
  });

  it('registers no document longer than 8 KB: it runs from its text, with a warning', async () => {
    const long = `query Long { a${'x'.repeat(8_200)}: pets(limit: 1) { id } }`;
    const ran = await post(api, { query: long, extensions: persisted(long) });
    expect(ran.status).toBe(200);
    expect(ran.body).toMatchObject({ extensions: { warnings: [{
      code: 'PERSISTED_QUERY_NOT_REGISTERED', message: `The document ${sha256(long)} was not registered: it is longer than 8,192 characters; it ran from its text`,
    }] } });
    expectRefusal(await post(api, { extensions: persisted(long) }), 404, 'PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound');
  });

  it('registers nothing for a request without a valid key: 401 first, and the hash stays unknown', async () => {
    const text = fresh();
    expectRefusal(await post(api, { query: text, extensions: persisted(text) }, {}), 401, 'UNAUTHENTICATED');
    expectRefusal(await post(api, { extensions: persisted(text) }), 404, 'PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound');
  });

  it('holds a registered document to the operation limits before registering it', async () => {
    const deep = `query Deep${randomBytes(4).toString('hex')} { pets(limit: 1) { orders { pet { orders { pet { orders { pet { orders { id } } } } } } } } }`;
    expectRefusal(await post(api, { query: deep, extensions: persisted(deep) }), 400, 'BAD_REQUEST', 'The operation is 9 levels deep; the limit is 8');
    expectRefusal(await post(api, { extensions: persisted(deep) }), 404, 'PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound');
  });
});

describe('Apollo Client 4 with createPersistedQueryLink (sha256 from node:crypto)', () => {
  let api: TestServer;
  beforeAll(async () => { api = await startServer(); });
  afterAll(async () => { await api?.close(); });

  it.each([false, true])('sends the hash, falls back to the text once, then the hash alone is enough (useGETForHashedQueries: %s)', async (useGET) => {
    const sent: { method: string; body: string | null; url: string; status: number }[] = [];
    const fetchFn: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      sent.push({ method: init?.method ?? 'GET', url: String(input), body: typeof init?.body === 'string' ? init.body : null, status: response.status });
      return response;
    };
    const client = () => new ApolloClient({
      cache: new InMemoryCache(),
      link: new PersistedQueryLink({ sha256: (text) => sha256(text), useGETForHashedQueries: useGET })
        .concat(new HttpLink({ uri: `${api.url}/graphql`, headers: api.headers, fetch: fetchFn })),
    });
    const name = `ApolloPets${useGET ? 'Get' : 'Post'}${randomBytes(4).toString('hex')}`;
    const query = apolloGql(`query ${name} { pets(limit: 2) { id name } }`);
    const first = await client().query({ query });
    expect(first.data).toEqual({ pets: expect.any(Array) });
    expect(sent.map(({ method, status }) => [method, status])).toEqual([[useGET ? 'GET' : 'POST', 404], ['POST', 200]]);
    const sentText = ({ body, url }: { body: string | null; url: string }) => (body ? 'query' in JSON.parse(body) : new URL(url).searchParams.has('query'));
    expect(sent.map(sentText)).toEqual([false, true]);
    // A new client (another browser) with the hash alone: one request, no text.
    const again = await client().query({ query });
    expect(again.data).toEqual(first.data);
    expect(sent.slice(2).map(({ method, status }) => [method, status])).toEqual([[useGET ? 'GET' : 'POST', 200]]);
    expect(sentText(sent[2]!)).toBe(false);
  });
});

describe('urql with persistedExchange (@urql/exchange-persisted)', () => {
  let api: TestServer;
  beforeAll(async () => { api = await startServer(); });
  afterAll(async () => { await api?.close(); });

  it.each([false, true])('sends the hash, then the text on a miss, then the hash alone (preferGetForPersistedQueries: %s)', async (preferGet) => {
    const sent: { method: string; status: number }[] = [];
    const client = () => new Client({
      url: `${api.url}/graphql`,
      exchanges: [persistedExchange({ generateHash: async (text) => sha256(text), preferGetForPersistedQueries: preferGet }), fetchExchange],
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        sent.push({ method: init?.method ?? 'GET', status: response.status });
        return response;
      },
      fetchOptions: { headers: api.headers },
      requestPolicy: 'network-only',
    });
    const query = urqlGql(`query Urql${preferGet ? 'Get' : 'Post'}${randomBytes(4).toString('hex')} { pets(limit: 2) { id name } }`);
    const first = await client().query(query, {}).toPromise();
    expect(first.error).toBeUndefined();
    expect(first.data).toEqual({ pets: expect.any(Array) });
    const again = await client().query(query, {}).toPromise();
    expect(again.data).toEqual(first.data);
    // urql sends the text the way it sent the hash (a GET while it fits in a URL).
    const method = preferGet ? 'GET' : 'POST';
    expect(sent).toEqual([{ method, status: 404 }, { method, status: 200 }, { method, status: 200 }]);
  });
});

/** A manifest as GraphQL Codegen's client preset writes it (sha256 keys), with a Relay-style (md5) id beside. */
const MANIFEST_DOCS = {
  list: 'query ListPets { pets(limit: 20) { id name categoryId status } }',
  one: 'query OnePet($limit: Int) { pets(limit: $limit) { id } }',
  relay: 'query RelayPets { pets(limit: 1) { id } }',
};
const RELAY_ID = createHash('md5').update(MANIFEST_DOCS.relay).digest('hex');
const manifestOf = (docs: Record<string, string>) => JSON.stringify(Object.fromEntries(Object.entries(docs).map(([, text]) => [sha256(text), text])));

describe('trusted documents (PERSISTED_DOCUMENTS_FILE)', () => {
  let api: TestServer;
  let file: string;
  beforeAll(async () => {
    file = join(mkdtempSync(join(tmpdir(), 'manifest-')), 'persisted-documents.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(manifestOf({ list: MANIFEST_DOCS.list, one: MANIFEST_DOCS.one })), [RELAY_ID]: MANIFEST_DOCS.relay }));
    api = await startServer({ env: { PERSISTED_DOCUMENTS_FILE: file, GRAPHQL_DOCUMENTS: 'registered' } });
  });
  afterAll(async () => { await api?.close(); });

  it('runs a manifest document by documentId ("sha256:<hex>" or bare), by Relay\'s id, and by persistedQuery hash, on POST and GET', async () => {
    const id = sha256(MANIFEST_DOCS.one);
    for (const reply of [
      await post(api, { documentId: `sha256:${id}`, variables: { limit: 1 } }),
      await post(api, { documentId: id, variables: { limit: 1 } }),
      await get(api, { documentId: `sha256:${id}`, variables: { limit: 1 } }),
      await post(api, { extensions: { persistedQuery: { version: 1, sha256Hash: id } }, variables: { limit: 1 } }),
    ]) {
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ data: { pets: expect.any(Array) } });
    }
    expect((await post(api, { documentId: RELAY_ID })).body).toEqual({ data: { pets: expect.any(Array) } });
  });

  it('answers an id the manifest does not have 404 PERSISTED_QUERY_NOT_FOUND', async () => {
    const unknown = sha256('query Nope { pets { id } }');
    expectRefusal(await post(api, { documentId: `sha256:${unknown}` }), 404, 'PERSISTED_QUERY_NOT_FOUND',
      `No document "sha256:${unknown}" is registered: send its text in "query" (this key runs only the trusted documents)`);
  });

  it('refuses text from a key held to the manifest (GRAPHQL_DOCUMENTS=registered): 403 PERSISTED_DOCUMENT_REQUIRED, points taken as for any refusal', async () => {
    const { auth } = await api.newKey('free');
    const refused = await post(api, { query: PETS }, auth);
    expectRefusal(refused, 403, 'PERSISTED_DOCUMENT_REQUIRED',
      'This key runs only the trusted documents: send a document of the manifest by "documentId" (or its hash), not a document of your own');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('59');
    // Text and hash of a document of its own: not registered either.
    expectRefusal(await post(api, { query: PETS, extensions: persisted(PETS) }, auth), 403, 'PERSISTED_DOCUMENT_REQUIRED');
    // The manifest's own text is the manifest's document.
    expect((await post(api, { query: MANIFEST_DOCS.relay }, auth)).status).toBe(200);
  });

  it('lets a key marked --documents any send any document: GraphiQL\'s introspection and text', async () => {
    const { auth } = await api.newKey('free', {}, undefined, 'any');
    expect((await post(api, { query: PETS }, auth)).body).toEqual({ data: { pets: expect.any(Array) } });
    const introspection = await post(api, { query: '{ __schema { queryType { name } } }' }, auth);
    expect(introspection.body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
  });

  it('reads the manifest again on reload; a bad one is refused and the last one kept', async () => {
    const added = 'query Added { pets(limit: 3) { id } }';
    expectRefusal(await post(api, { documentId: `sha256:${sha256(added)}` }), 404, 'PERSISTED_QUERY_NOT_FOUND');
    writeFileSync(file, manifestOf({ ...MANIFEST_DOCS, added }));
    expect(api.reloadDocuments()).toBe(true);
    expect((await post(api, { documentId: `sha256:${sha256(added)}` })).status).toBe(200);
    writeFileSync(file, '{"not": ');
    expect(api.reloadDocuments()).toBe(false);
    expect((await post(api, { documentId: `sha256:${sha256(added)}` })).status).toBe(200);
  });
});

describe('a bad manifest at startup', () => {
  const dir = mkdtempSync(join(tmpdir(), 'manifest-'));
  let store: Store;
  beforeAll(async () => { store = await freshStore(); });
  afterAll(async () => { await store?.drop(); });
  it.each([
    ['not JSON', '{"a": ', /PERSISTED_DOCUMENTS_FILE .*: Unexpected end of JSON input|PERSISTED_DOCUMENTS_FILE .*JSON/],
    ['an array', '[]', /must be a JSON object of document ids to documents/],
    ['a hash that is not its document\'s', JSON.stringify({ [sha256('x')]: PETS }), /the document's SHA-256 is/],
    ['a document with an unknown field', JSON.stringify({ abc: '{ pets { color } }' }), /"abc": Cannot query field "color"/],
    ['a document past the depth limit', JSON.stringify({ deep: '{ pets(limit: 1) { orders { pet { orders { pet { orders { pet { orders { id } } } } } } } } }' }),
      /"deep": The operation is 9 levels deep; the limit is 8/],
  ])('stops the service, saying what is wrong (%s)', async (_case, content, message) => {
    const file = join(dir, `${randomBytes(4).toString('hex')}.json`);
    writeFileSync(file, content);
    await expect(startServer({ store, env: { PERSISTED_DOCUMENTS_FILE: file } })).rejects.toThrow(message);
  });
});

const redisUrl = process.env.TEST_REDIS_URL;

describe.runIf(redisUrl)('automatic persisted queries in Redis', () => {
  it('a document registered on one instance runs by its hash on another', async () => {
    const a = await startServer({ env: { REDIS_URL: redisUrl! } });
    try {
      const b = await startServer({ store: a.shared.store, clock: a.shared.clock, env: { ...a.shared.env, REDIS_URL: redisUrl! } });
      try {
        const text = fresh();
        expect((await post(a, { query: text, extensions: persisted(text) })).status).toBe(200);
        const there = await post(b, { extensions: persisted(text) }, a.headers);
        expect(there.status).toBe(200);
        expect(there.body).toEqual({ data: { pets: expect.any(Array) } });
      } finally {
        await b.stop();
      }
    } finally {
      await a.close();
    }
  });
});

describe('automatic persisted queries while Redis is unreachable', () => {
  it('answers a hash not found (never 5xx), and the text runs', async () => {
    const api = await startServer({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    try {
      const text = fresh();
      expectRefusal(await post(api, { extensions: persisted(text) }), 404, 'PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound');
      expect((await post(api, { query: text, extensions: persisted(text) })).status).toBe(200);
      // Kept by this instance meanwhile.
      expect((await post(api, { extensions: persisted(text) })).status).toBe(200);
    } finally {
      await api.close();
    }
  });
});
