import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_NESTING } from '../../src/pipeline/nesting.js';
import { startServer, type TestServer } from '../support/server.js';
import { rawSocket } from '../support/websocket.js';

/**
 * Issue 50: variables 5,000 arrays deep were a 500 (the response cache's key, JSON.stringify, overflowed
 * the stack), and so were deep bodies with an Idempotency-Key, deep socket messages and a GraphQL list
 * value 2,000 deep. Every surface, at 5,000 levels and at 100,000, with the response cache on and off:
 * a 4xx (413 once the body passes 64 KiB, the socket's 1009 once a message does), never a 5xx.
 */
const BODY_LIMIT = 64 * 1024;
const ADMIN_TOKEN = randomBytes(32).toString('hex');
const QUERY = 'query List($status: PetStatus) { pets(status: $status) { id } }';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const SHAPES = {
  arrays: (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`,
  objects: (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`,
};
const CASES = [5_000, 100_000].flatMap((depth) => Object.entries(SHAPES).map(([shape, nest]) => ({ depth, shape, deep: nest(depth) })));
const NESTING = `nests deeper than ${MAX_NESTING} levels of arrays and objects`;

/** The GraphQL bodies that carry deep variables, each a path of its own to the cache, the limits and the documents. */
const GRAPHQL_BODIES: [string, (deep: string) => string][] = [
  ['a POST\'s variables', (deep) => `{"query":${JSON.stringify(QUERY)},"variables":{"status":${deep}}}`],
  ['a batch\'s operation', (deep) => `[{"query":"{ __typename }"},{"query":${JSON.stringify(QUERY)},"variables":{"status":${deep}}}]`],
  ['a persisted query\'s variables (by hash)', (deep) => `{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"${sha256(QUERY)}"}},"variables":{"status":${deep}}}`],
  ['extensions', (deep) => `{"query":${JSON.stringify(QUERY)},"extensions":{"tracing":${deep}}}`],
];
const REST_BODIES: [string, string, (deep: string) => string, Record<string, string>][] = [
  ['POST', '/v1/pets', (deep) => `{"name":"Rex","categoryId":1,"tags":${deep}}`, {}],
  ['POST', '/v1/pets', (deep) => `{"name":${deep},"categoryId":1}`, { 'idempotency-key': 'deep' }],
  ['PATCH', '/v1/pets/1', (deep) => `{"name":${deep}}`, {}],
  ['POST', '/v1/store/orders', (deep) => `{"petId":${deep}}`, {}],
];

describe.each([['on', {}], ['off', { RESPONSE_CACHE_MB: '0' }]])('deep input with the response cache %s', (_, env: Record<string, string>) => {
  let api: TestServer;
  beforeAll(async () => {
    // A query string as long as a deep GET needs: past MAX_HEADER_BYTES it would be a 431 before anything reads it.
    api = await startServer({ env: { ...env, MAX_HEADER_BYTES: '1048576', ADMIN_PORT: '0', ADMIN_TOKENS: `ops:${ADMIN_TOKEN}` } });
    // The document is registered, so that a request by its hash alone finds it.
    expect((await api.post('/graphql', { query: QUERY, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(QUERY) } } })).status).toBe(200);
  });
  afterAll(async () => { await api?.close(); });

  const send = async (url: string, init: RequestInit) => {
    const res = await fetch(url, init);
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: JSON.parse(text) as unknown };
  };
  /** What a body of `size` bytes gets: 413 past the limit (its connection closed), otherwise 400 naming the nesting. */
  const expectRefused = (res: Awaited<ReturnType<typeof send>>, size: number, shape: 'rest' | 'graphql', what = 'The request body') => {
    const [status, code, message] = size > BODY_LIMIT
      ? [413, 'PAYLOAD_TOO_LARGE', `The request body must be at most ${BODY_LIMIT} bytes`] : [400, 'BAD_REQUEST', `${what} ${NESTING}`];
    expect(res.status).toBe(status);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    if (status === 413) expect(res.headers.get('connection')).toBe('close');
    if (shape === 'rest') {
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toEqual({ code, message, status });
    } else {
      expect(res.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
      expect(res.body).toEqual({ errors: [{ message: expect.stringContaining(message), extensions: { code, status } }] });
    }
  };
  const gqlHeaders = () => ({ ...api.headers, accept: 'application/graphql-response+json' });

  describe.each(CASES)('$depth levels of $shape', ({ deep }) => {
    it.each(GRAPHQL_BODIES)('POST /graphql with them in %s answers 400 or 413, never 5xx', async (__, body) => {
      const text = body(deep);
      const res = await send(`${api.url}/graphql`, { method: 'POST', body: text, headers: { ...gqlHeaders(), 'content-type': 'application/json' } });
      expectRefused(res, Buffer.byteLength(text), 'graphql');
      expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    });

    it('GET /graphql with them in "variables" answers 400 naming "variables"', async () => {
      const res = await send(`${api.url}/graphql?query=${encodeURIComponent(QUERY)}&variables={"status":${deep}}`, { headers: gqlHeaders() });
      expectRefused(res, 0, 'graphql', '"variables"');
    });

    it.each(REST_BODIES)('%s %s with them in its body answers 400 or 413 in the Error shape', async (method, path, body, headers) => {
      const text = body(deep);
      const res = await send(`${api.url}${path}`, { method, body: text, headers: { ...api.headers, ...headers, 'content-type': 'application/json' } });
      expectRefused(res, Buffer.byteLength(text), 'rest');
    });

    it('POST /admin/keys with them in its body answers 400 or 413 in the Error shape', async () => {
      const text = `{"plan":"free","name":${deep}}`;
      const res = await send(`${api.adminUrl}/admin/keys`, {
        method: 'POST', body: text, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      });
      expectRefused(res, Buffer.byteLength(text), 'rest');
    });

    it.each([
      ['a subscribe\'s variables', (d: string) => `{"id":"1","type":"subscribe","payload":{"query":${JSON.stringify(QUERY)},"variables":{"status":${d}}}}`],
      ['a ping\'s payload', (d: string) => `{"type":"ping","payload":{"a":${d}}}`],
    ])('a WebSocket message with them in %s closes the socket 4400 (1009 past 64 KiB), never 4500', async (__, message) => {
      const raw = await rawSocket(api.url);
      raw.send({ type: 'connection_init', payload: api.headers });
      await raw.receive((m) => m.type === 'connection_ack');
      const text = message(deep);
      raw.send(text);
      // ws closes an oversized message's socket with no reason.
      expect(await raw.closes).toEqual(Buffer.byteLength(text) > BODY_LIMIT
        ? { code: 1009, reason: '' }
        : { code: 4400, reason: `The message ${NESTING}` });
    });
  });

  it('a connection_init whose payload nests deeper than the limit closes the socket 4400', async () => {
    const raw = await rawSocket(api.url);
    raw.send(`{"type":"connection_init","payload":{"authorization":"${api.headers.authorization}","a":${SHAPES.arrays(5_000)}}}`);
    expect(await raw.closes).toEqual({ code: 4400, reason: `The message ${NESTING}` });
  });

  it('a document whose list value nests 2,000 deep (within the token limit) answers 400 naming the nesting', async () => {
    const query = `{ nodes(ids: ${SHAPES.arrays(2_000)}) { nodeId } }`;
    const res = await send(`${api.url}/graphql`, {
      method: 'POST', body: JSON.stringify({ query }), headers: { ...gqlHeaders(), 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{
      message: `The document nests deeper than ${MAX_NESTING} levels of braces, brackets and parentheses`, extensions: { code: 'BAD_REQUEST', status: 400 },
    }] });
  });

  it('variables nested to the limit still run', async () => {
    const res = await api.post('/graphql', JSON.parse(`{"query":${JSON.stringify(QUERY)},"variables":{"status":"available","x":${SHAPES.arrays(MAX_NESTING - 2)}}}`));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { pets: expect.any(Array) } });
  });
});
