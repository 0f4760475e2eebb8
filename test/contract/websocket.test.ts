import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeKey } from '../../src/auth/key-admin.js';
import { apiKeyStore } from '../../src/db/api-keys.js';
import { openStore } from '../support/backend.js';
import { requestLines } from '../support/request-lines.js';
import { startServer, type TestServer } from '../support/server.js';
import { subscribe as sseSubscribe } from '../support/sse.js';
import { rawSocket, wsClient } from '../support/websocket.js';

/**
 * GraphQL over WebSocket (graphql-transport-ws) as graphql-ws's own client speaks it (the one Apollo's
 * GraphQLWsLink and urql's subscription exchange wrap), and by hand for what no client sends: every
 * operation held to the rules of the POST it stands for, and the socket's own rules.
 */
let api: TestServer;
beforeAll(async () => { api = await startServer({ env: { SUBSCRIPTIONS_PER_KEY: '2', KEY_CACHE_TTL_SECONDS: '1' } }); });
afterAll(async () => { await api?.close(); });

const remaining = async (auth: Record<string, string>) => Number((await api.get('/v1/rate_limit', auth)).headers.get('x-ratelimit-remaining'));
const fresh = async (scopes?: string) => api.newKey('enterprise', { perMinute: 1_000, perDay: 10_000 }, scopes);

describe('the key, at connection_init', () => {
  it('is taken from connectionParams in both shapes: {authorization} and {headers: {Authorization}}', async () => {
    const { key } = await fresh();
    for (const params of [{ authorization: `Bearer ${key}` }, { headers: { Authorization: `Bearer ${key}` } }, { Authorization: `Bearer ${key}` }]) {
      const ws = wsClient(api.url, params);
      expect(await ws.run('{ rateLimit { plan } }')).toEqual({ data: { rateLimit: { plan: 'enterprise' } } });
      await ws.dispose();
    }
  });

  it.each([
    ['no key', {}, 'An API key is required: send "Authorization: Bearer <API key>"'],
    ['an unknown key', { authorization: 'Bearer as_live_000000000000000000000000000000000000000000' }, /unknown or revoked|mistyped/],
    ['a malformed header', { authorization: 'Basic abc' }, 'The Authorization header must be "Bearer <API key>"'],
  ])('refuses %s: the socket is closed 4403 with the refusal\'s words, and the try counts against the address', async (_, params, words) => {
    const ws = wsClient(api.url, params);
    const closed = await ws.closes;
    expect(closed.code).toBe(4403);
    expect(closed.reason).toEqual(typeof words === 'string' ? words : expect.stringMatching(words));
    await ws.dispose();
  });

  it('closes a socket that sends nothing after the upgrade: 4408 after 3 s', async () => {
    const raw = await rawSocket(api.url);
    const started = Date.now();
    expect(await raw.closes).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
  });

  it('closes a socket that speaks another subprotocol (subscriptions-transport-ws): 4406', async () => {
    const raw = await rawSocket(api.url, 'graphql-ws');
    expect((await raw.closes).code).toBe(4406);
  });

  it('closes a socket that subscribes before connection_init: 4401; one that sends what is no message of a client: 4400', async () => {
    const early = await rawSocket(api.url);
    early.send({ id: '1', type: 'subscribe', payload: { query: '{ __typename }' } });
    expect((await early.closes).code).toBe(4401);
    const garbled = await rawSocket(api.url);
    garbled.send('{not json');
    expect((await garbled.closes).code).toBe(4400);
    // A message only the server sends (found by the property test: it was a 4500 before).
    const { key } = await fresh();
    const backwards = await rawSocket(api.url);
    backwards.send({ type: 'connection_init', payload: { authorization: `Bearer ${key}` } });
    await backwards.receive((m) => m.type === 'connection_ack');
    backwards.send({ id: 'x', type: 'next', payload: { data: {} } });
    expect(await backwards.closes).toEqual({ code: 4400, reason: 'Unexpected message of type next received' });
  });

  it('ends the socket of a key revoked meanwhile, within the key cache\'s TTL: 4403', async () => {
    const { key, id } = await fresh();
    const ws = wsClient(api.url, { authorization: `Bearer ${key}` });
    expect(await ws.run('{ rateLimit { plan } }')).toEqual({ data: { rateLimit: { plan: 'enterprise' } } });
    const dataSource = await openStore(api.store);
    try { await revokeKey(apiKeyStore(dataSource), String(id)); } finally { await dataSource.destroy(); }
    // Past the key cache's lifetime (the server's clock stands still until moved).
    api.clock.advance(1_500);
    const started = Date.now();
    const closed = await ws.closes;
    expect(closed).toEqual({ code: 4403, reason: 'The API key is unknown or revoked' });
    expect(Date.now() - started).toBeLessThan(3_000);
    await ws.dispose();
  });
});

describe('operations over the socket, each held to the rules of its POST', () => {
  it('answers a query and a mutation as HTTP does, and charges one point per root field', async () => {
    const { auth, key } = await fresh();
    const ws = wsClient(api.url, { authorization: `Bearer ${key}` });
    const before = await remaining(auth);
    const created = await ws.run<{ createPet: { id: number; name: string } }>('mutation { createPet(input: {name: "Socks", categoryId: 1}) { id name status } }');
    expect(created).toEqual({ data: { createPet: { id: expect.any(Number), name: 'Socks', status: 'available' } } });
    const { id } = (created as { data: { createPet: { id: number } } }).data.createPet;
    expect(await ws.run('query Two($id: SafeInt!) { pet(petId: $id) { name } rateLimit { plan } }', { id }))
      .toEqual({ data: { pet: { name: 'Socks' }, rateLimit: { plan: 'enterprise' } }, extensions: { warnings: [expect.objectContaining({ code: 'DEPRECATED_FIELD', field: 'Query.pet' })] } });
    expect((await api.get(`/v1/pets/${id}`, auth)).body.name).toBe('Socks');
    // One for the mutation, two for the query's two root fields.
    expect(before - await remaining(auth)).toBe(3);
    await ws.dispose();
  });

  it('writes each operation\'s access-log line and counts it in the metrics, as the POST it stands for', async () => {
    const { key } = await fresh();
    const lines = requestLines();
    const metric = async () => Number(/^animal_store_http_requests_total\{[^}]*route="\/graphql"[^}]*status="200"[^}]*\} (\d+)/m.exec(await (await fetch(`${api.url}/metrics`)).text())?.[1] ?? 0);
    const before = await metric();
    const ws = wsClient(api.url, { authorization: `Bearer ${key}` });
    await ws.run('{ rateLimit { plan } }');
    await ws.dispose();
    const line = lines().find((l) => l.transport === 'websocket');
    expect(line).toMatchObject({ method: 'POST', path: '/graphql', route: '/graphql', status: 200, transport: 'websocket', keyPrefix: key.slice(0, 12), client: '127.0.0.1' });
    expect(await metric()).toBe(before + 1);
  });

  it('refuses what HTTP refuses, as the protocol\'s `error` message with the code and status', async () => {
    const { key } = await fresh();
    const ws = wsClient(api.url, { authorization: `Bearer ${key}` });
    const deep = `{ pets { ${'orders { pet { '.repeat(5)}id${' } }'.repeat(5)} } }`;
    const refused = await ws.run(deep) as { thrown: { message: string; extensions: { code: string; status: number } }[] };
    expect(refused.thrown).toEqual([{ message: 'The operation is 12 levels deep; the limit is 8', extensions: { code: 'BAD_REQUEST', status: 400 } }]);
    const invalid = await ws.run('{ zzz }') as { thrown: { extensions: { code: string } }[] };
    expect(invalid.thrown).toEqual([expect.objectContaining({ message: 'Cannot query field "zzz" on type "Query".', extensions: expect.objectContaining({ code: 'BAD_REQUEST', status: 400 }) })]);
    // A field's own error is a result: `next` with data and the error's code.
    const missing = await ws.run('{ order(orderId: 999999999) { id } }');
    expect(missing).toEqual({ data: { order: null }, errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'NOT_FOUND', status: 404 }) })] });
    await ws.dispose();
  });

  it('holds a restricted key to its scopes', async () => {
    const { key } = await fresh('pets:read');
    const ws = wsClient(api.url, { authorization: `Bearer ${key}` });
    expect(await ws.run('{ pets(limit: 1) { id } }')).toEqual({ data: { pets: expect.any(Array) } });
    const refused = await ws.run('{ orders(limit: 1) { id } }') as { thrown: { extensions: { code: string; status: number } }[] };
    expect(refused.thrown).toEqual([expect.objectContaining({ extensions: { code: 'FORBIDDEN', status: 403 } })]);
    await ws.dispose();
  });

  it('refuses an operation over the key\'s budget with RATE_LIMITED, and the socket stays open', async () => {
    const { key } = await api.newKey('enterprise', { perMinute: 2, perDay: 100 });
    const ws = wsClient(api.url, { authorization: `Bearer ${key}` });
    expect(await ws.run('{ a: pets(limit: 1) { id } b: pets(limit: 1) { id } }')).toEqual({ data: { a: expect.any(Array), b: expect.any(Array) } });
    const refused = await ws.run('{ pets(limit: 1) { id } }') as { thrown: { extensions: { code: string; status: number } }[] };
    expect(refused.thrown).toEqual([expect.objectContaining({ extensions: { code: 'RATE_LIMITED', status: 429 } })]);
    expect(ws.client).toBeTruthy();
    await ws.dispose();
  });
});

describe('subscriptions over the socket', () => {
  it('hear each change, and resume after the last event heard with `after`', async () => {
    const { key, auth } = await fresh();
    const ws = wsClient(api.url, { authorization: `Bearer ${key}` });
    const first = ws.subscribe('subscription { petChanged { id kind pet { name } } }');
    // Answered once the stream listens: a change after the first answer is heard.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await api.post('/v1/pets', { name: 'Alpha', categoryId: 1 }, auth);
    await api.post('/v1/pets', { name: 'Beta', categoryId: 1 }, auth);
    const heard = await first.until(2);
    expect(heard.map((r: any) => r.data.petChanged.pet.name)).toEqual(['Alpha', 'Beta']);
    first.stop();
    const alphaId = (heard[0] as any).data.petChanged.id;
    const resumed = ws.subscribe('subscription ($after: SafeInt) { petChanged(after: $after) { id pet { name } } }', { after: alphaId });
    expect((await resumed.until(1)).map((r: any) => r.data.petChanged.pet.name)).toEqual(['Beta']);
    resumed.stop();
    await ws.dispose();
  });

  it('share the key\'s stream slots with Server-Sent Events, and give a slot back when completed', async () => {
    const { key, auth } = await fresh();
    const sse = await sseSubscribe(api.url, 'subscription { petChanged { id } }', auth);
    expect(sse.opened).toBe(true);
    const ws = wsClient(api.url, { authorization: `Bearer ${key}` });
    const second = ws.subscribe('subscription { orderChanged { id } }');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const third = ws.subscribe('subscription { petChanged { id } }');
    const refused = await third.ends as { thrown: { message: string; extensions: { code: string; status: number } }[] };
    expect(refused.thrown).toEqual([{ message: 'A key may hold 2 open subscriptions at once; close one before opening another', extensions: { code: 'RATE_LIMITED', status: 429 } }]);
    // The socket stays; once its subscription completes, its slot serves another stream.
    second.stop();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const again = await sseSubscribe(api.url, 'subscription { petChanged { id } }', auth);
    expect(again.opened).toBe(true);
    again.close();
    sse.close();
    await ws.dispose();
  });
});

describe('the socket\'s own rules', () => {
  it('closes a socket that floods messages: 1008, and its client does not retry', async () => {
    const { key } = await fresh();
    const raw = await rawSocket(api.url);
    raw.send({ type: 'connection_init', payload: { authorization: `Bearer ${key}` } });
    await raw.receive((m) => m.type === 'connection_ack');
    for (let i = 0; i < 150; i++) raw.send({ type: 'ping' });
    expect(await raw.closes).toEqual({ code: 1008, reason: 'Too many messages: at most 100 a second on one socket' });
  });

  it('refuses a subscriber id already in use: 4409', async () => {
    const { key } = await fresh();
    const raw = await rawSocket(api.url);
    raw.send({ type: 'connection_init', payload: { authorization: `Bearer ${key}` } });
    await raw.receive((m) => m.type === 'connection_ack');
    raw.send({ id: 'a', type: 'subscribe', payload: { query: 'subscription { petChanged { id } }' } });
    raw.send({ id: 'a', type: 'subscribe', payload: { query: 'subscription { petChanged { id } }' } });
    expect((await raw.closes).code).toBe(4409);
  });

  it('takes no message larger than a request body: 1009', async () => {
    const { key } = await fresh();
    const raw = await rawSocket(api.url);
    raw.send({ type: 'connection_init', payload: { authorization: `Bearer ${key}` } });
    await raw.receive((m) => m.type === 'connection_ack');
    raw.send({ id: 'big', type: 'subscribe', payload: { query: `{ __typename } #${'x'.repeat(70_000)}` } });
    expect((await raw.closes).code).toBe(1009);
  });
});

describe('upgrades that are not a WebSocket on /graphql', () => {
  it('are answered as the plain requests they also are (curl --http2 asks for h2c), bodies included', async () => {
    const listed = await plain('GET', '/v1/pets?limit=1', { upgrade: 'h2c', connection: 'Upgrade, HTTP2-Settings', 'http2-settings': 'AAMAAABkAAQAoAAAAAIAAAAA' });
    expect(listed.status).toBe(200);
    expect(JSON.parse(listed.body)).toEqual(expect.any(Array));
    const created = await plain('POST', '/v1/pets', { upgrade: 'h2c', connection: 'Upgrade', 'content-type': 'application/json' }, JSON.stringify({ name: 'Upgraded', categoryId: 1 }));
    expect(created.status).toBe(201);
    expect(JSON.parse(created.body).name).toBe('Upgraded');
    // A WebSocket elsewhere than /graphql is the GET it also is.
    const elsewhere = await plain('GET', '/v1/pets/0', { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' });
    expect(elsewhere.status).toBe(400);
    expect(JSON.parse(elsewhere.body).code).toBe('BAD_REQUEST');
  });
});

/** node:http's client, which sends the Connection and Upgrade headers fetch() may not. */
function plain(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${api.url}${path}`, { method, headers: { ...api.headers, ...headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('a draining instance', () => {
  it('closes its sockets with 1001 (Going Away), so clients reconnect elsewhere', async () => {
    const own = await startServer();
    const ws = wsClient(own.url, own.headers);
    const sub = ws.subscribe('subscription { petChanged { id } }');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stopping = own.close();
    expect(await ws.closes).toEqual({ code: 1001, reason: 'The service is restarting: reconnect' });
    await stopping;
    sub.stop();
    await ws.dispose();
  });
});
