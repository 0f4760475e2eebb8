import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTracing } from '../../src/tracing/start.js';
import type { TestServer } from '../support/server.js';

// Tracing starts before anything imports mysql2 or ioredis, as main.ts starts it: the instrumentations
// patch them as they load. So the server's modules are imported only now (vitest runs each file afresh).
const memory = new InMemorySpanExporter();
const tracing = startTracing({ exporter: 'otlp', protocol: 'http/json' }, { processor: new SimpleSpanProcessor(memory) });
const { startServer } = await import('../support/server.js');

/** On MySQL (and Redis) every statement and Redis call is a span; the embedded store's (SQLite) are not traced. */
const mysql = process.env.TEST_BACKEND === 'mysql';

interface Node {
  readonly span: ReadableSpan;
  readonly children: Node[];
}

const started = (s: ReadableSpan) => s.startTime[0] * 1e9 + s.startTime[1];

/** The traces of the requests whose span is named `name`, oldest first, each with its spans below it in start order. */
async function requestTraces(name: string, count = 1): Promise<Node[]> {
  const roots = () => memory.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER && s.name === name);
  await expect.poll(() => roots().length).toBe(count);
  const spans = memory.getFinishedSpans();
  const below = (span: ReadableSpan): Node => ({
    span,
    children: spans.filter((s) => s.parentSpanContext?.spanId === span.spanContext().spanId).sort((a, b) => started(a) - started(b)).map(below),
  });
  return roots().map(below);
}

const isStore = (s: ReadableSpan) => s.attributes['db.system.name'] !== undefined;
/** The request's own children, without the statements and Redis calls the response hooks made. */
const steps = (node: Node) => node.children.filter((c) => !isStore(c.span)).map((c) => c.span.name);
const child = (node: Node, name: string) => node.children.find((c) => c.span.name === name)!;
const below = (node: Node): ReadableSpan[] => node.children.flatMap((c) => [c.span, ...below(c)]);
const sql = (node: Node) => below(node).filter((s) => s.attributes['db.system.name'] === 'mysql');
const redis = (node: Node) => below(node).filter((s) => s.attributes['db.system.name'] === 'redis');
const statements = (node: Node) => sql(node).map((s) => String(s.attributes['db.query.text']));

let api: TestServer;
beforeAll(async () => {
  api = await startServer({
    tracing,
    // An unexpected failure on demand, inside the error boundary: a 500.
    steps: [{ onRequest({ request }) { if (request.headers.has('x-test-fail')) throw new Error('failing on purpose'); } }],
  });
});
afterAll(async () => { await api?.close(); });
beforeEach(() => memory.reset());

describe('traces, collected in memory', () => {
  it('POST /v1/pets: a request span with its route, status and key id; key look-up, limits, idempotency and execute below it', async () => {
    const { id, auth } = await api.newKey('enterprise', { perMinute: 1_000, perDay: 1_000 });
    const res = await api.post('/v1/pets', { name: 'Traced Rex', categoryId: 1 }, { ...auth, 'idempotency-key': 'traced-rest-1' });
    expect(res.status).toBe(201);

    const [trace] = await requestTraces('POST /v1/pets');
    expect(trace!.span.kind).toBe(SpanKind.SERVER);
    expect(trace!.span.parentSpanContext).toBeUndefined();
    expect(trace!.span.status.code).toBe(SpanStatusCode.UNSET);
    expect(trace!.span.attributes).toEqual({
      'http.request.method': 'POST', 'http.route': '/v1/pets', 'url.path': '/v1/pets', 'http.response.status_code': 201, 'animal_store.key_id': id,
    });
    expect(steps(trace!)).toEqual(['key look-up', 'limits', 'idempotency', 'graphql.execute']);
    // A new key is looked up in the database; an Idempotency-Key is claimed: both waited.
    expect(child(trace!, 'key look-up').span.attributes).toEqual({ 'animal_store.waited': true });
    expect(child(trace!, 'limits').span.attributes).toEqual({ 'animal_store.waited': true });
    expect(child(trace!, 'idempotency').span.attributes).toEqual({ 'animal_store.waited': true });
    expect(child(trace!, 'graphql.execute').span.attributes).toEqual({ 'graphql.operation.type': 'mutation', 'graphql.operation.name': 'createPet_mutation' });

    if (!mysql) {
      expect(sql(trace!)).toEqual([]);
      return;
    }
    // Each statement under the step that waited for it, as written: placeholders, never the values.
    expect(statements(child(trace!, 'key look-up'))).toContainEqual(expect.stringMatching(/FROM `api_keys` .*WHERE \(\(`ApiKey`\.`hash` = \?\)\)/));
    expect(statements(child(trace!, 'graphql.execute'))).toContainEqual(expect.stringContaining('INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)'));
    for (const text of statements(trace!)) expect(text).not.toContain('Traced Rex');
    expect(sql(trace!)[0]!.attributes).toMatchObject({ 'db.system.name': 'mysql', 'server.address': '127.0.0.1', 'server.port': 3306 });
    // The limits and the idempotency claim are Redis calls, named by command only (one may show twice:
    // ioredis sends some commands again, a script Redis does not hold yet among them).
    expect(redis(child(trace!, 'limits')).map((s) => s.attributes['db.query.text'])).toContain('evalsha');
    expect(redis(child(trace!, 'idempotency')).map((s) => s.attributes['db.query.text'])).toContain('set');
  });

  it('a GraphQL mutation: parse, limits, validate and execute below the request span; a document sent again is parsed and validated once', async () => {
    const query = 'mutation CreateTraced($input: NewPet!) { createPet(input: $input) { id } }';
    expect((await api.gql(query, { input: { name: 'Traced Gql', categoryId: 2 } })).status).toBe(200);
    expect((await api.gql(query, { input: { name: 'Traced Gql', categoryId: 2 } })).status).toBe(200);

    const [first, again] = await requestTraces('POST /graphql', 2);
    expect(first!.span.attributes).toMatchObject({ 'http.route': '/graphql', 'http.response.status_code': 200, 'animal_store.key_id': expect.any(Number) });
    expect(steps(first!)).toEqual(['key look-up', 'graphql.parse', 'limits', 'idempotency', 'graphql.validate', 'graphql.execute']);
    const operation = { 'graphql.operation.type': 'mutation', 'graphql.operation.name': 'CreateTraced' };
    expect(child(first!, 'graphql.parse').span.attributes).toEqual({ 'animal_store.cached': false, ...operation });
    expect(child(first!, 'graphql.validate').span.attributes).toEqual({ 'animal_store.cached': false });
    expect(child(first!, 'graphql.execute').span.attributes).toEqual(operation);
    // No Idempotency-Key: nothing to claim, nothing waited for.
    expect(child(first!, 'idempotency').span.attributes).toEqual({ 'animal_store.waited': false });

    expect(steps(again!)).toEqual(steps(first!));
    expect(child(again!, 'key look-up').span.attributes).toEqual({ 'animal_store.waited': false });
    expect(child(again!, 'graphql.parse').span.attributes).toEqual({ 'animal_store.cached': true, ...operation });
    expect(child(again!, 'graphql.validate').span.attributes).toEqual({ 'animal_store.cached': true });
    if (mysql) {
      expect(statements(child(again!, 'graphql.execute'))).toContainEqual(expect.stringContaining('INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)'));
      for (const text of statements(again!)) expect(text).not.toContain('Traced Gql');
    } else {
      expect(sql(again!)).toEqual([]);
    }
  });

  it('continues the client\'s W3C traceparent; a malformed one starts a new trace', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const spanId = '00f067aa0ba902b7';
    expect((await api.get('/v1/pets?limit=1', { traceparent: `00-${traceId}-${spanId}-01` })).status).toBe(200);
    const [continued] = await requestTraces('GET /v1/pets');
    expect(continued!.span.spanContext().traceId).toBe(traceId);
    expect(continued!.span.parentSpanContext).toMatchObject({ traceId, spanId, isRemote: true });

    memory.reset();
    expect((await api.get('/v1/pets?limit=1', { traceparent: `00-${traceId}-nothex-01` })).status).toBe(200);
    const [fresh] = await requestTraces('GET /v1/pets');
    expect(fresh!.span.parentSpanContext).toBeUndefined();
    expect(fresh!.span.spanContext().traceId).not.toBe(traceId);
  });

  it('records nothing of a request its client did not sample, its statements and Redis calls included; the next sampled one whole', async () => {
    const unsampled = '5bf92f3577b34da6a3ce929d0e0e4736';
    const sampled = '6bf92f3577b34da6a3ce929d0e0e4736';
    const spanId = '00f067aa0ba902b7';
    const { auth } = await api.newKey('enterprise', { perMinute: 1_000, perDay: 1_000 });
    // A create: a statement and Redis calls (limits, idempotency) on MySQL; a GraphQL parse and execute.
    const create = (traceId: string, flags: string, key: string) => api.post('/v1/pets', { name: 'Sampled?', categoryId: 1 }, {
      ...auth, 'idempotency-key': key, traceparent: `00-${traceId}-${spanId}-${flags}`,
    });
    expect((await create(unsampled, '00', 'unsampled-1')).status).toBe(201);
    expect((await create(sampled, '01', 'sampled-1')).status).toBe(201);
    const [traced] = await requestTraces('POST /v1/pets');
    expect(traced!.span.spanContext().traceId).toBe(sampled);
    expect(steps(traced!)).toEqual(['key look-up', 'limits', 'idempotency', 'graphql.execute']);
    if (mysql) {
      expect(sql(traced!).length).toBeGreaterThan(0);
      expect(redis(traced!).length).toBeGreaterThan(0);
    }
    expect(memory.getFinishedSpans().filter((s) => s.spanContext().traceId === unsampled).map((s) => s.name)).toEqual([]);
  });

  it('a read from the response cache: the same request span and steps, marked a hit, with no execution and no statement', async () => {
    const path = '/v1/pets?limit=3&status=sold';
    await api.get(path);
    const tag = (await api.get(path)).headers.get('etag')!;
    expect((await api.get(path, { 'if-none-match': tag })).status).toBe(304);
    const [miss, hit, unchanged] = await requestTraces('GET /v1/pets', 3);
    expect(miss!.span.attributes).toMatchObject({ 'http.response.status_code': 200, 'animal_store.cache': 'miss' });
    expect(hit!.span.attributes).toMatchObject({ 'http.response.status_code': 200, 'animal_store.cache': 'hit', 'animal_store.key_id': expect.any(Number) });
    expect(unchanged!.span.attributes).toMatchObject({ 'http.response.status_code': 304, 'animal_store.cache': 'hit' });
    expect(steps(miss!)).toEqual(['key look-up', 'limits', 'idempotency', 'graphql.execute']);
    // The hit and its 304: neither the resolvers nor the database.
    for (const answered of [hit!, unchanged!]) {
      expect(steps(answered)).toEqual(['key look-up', 'limits', 'idempotency']);
      expect(sql(answered)).toEqual([]);
    }
  });

  it('marks a 5xx as an error; a refusal (429 from the limits) is the work done right, its code noted', async () => {
    expect((await api.get('/v1/pets?limit=1', { 'x-test-fail': '1' })).status).toBe(500);
    const [failed] = await requestTraces('GET /v1/pets');
    expect(failed!.span.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed!.span.attributes).toMatchObject({ 'http.response.status_code': 500, 'error.type': '500' });

    memory.reset();
    const { auth } = await api.newKey('enterprise', { perMinute: 1, perDay: 100 });
    expect((await api.get('/v1/pets?limit=1', auth)).status).toBe(200);
    expect((await api.get('/v1/pets?limit=1', auth)).status).toBe(429);
    const [, refused] = await requestTraces('GET /v1/pets', 2);
    expect(refused!.span.status.code).toBe(SpanStatusCode.UNSET);
    expect(refused!.span.attributes).toMatchObject({ 'http.response.status_code': 429 });
    expect(steps(refused!)).toEqual(['key look-up', 'limits']);
    expect(child(refused!, 'limits').span.status.code).toBe(SpanStatusCode.UNSET);
    expect(child(refused!, 'limits').span.attributes).toEqual({ 'animal_store.waited': true, 'error.type': 'RATE_LIMITED' });
  });
});
