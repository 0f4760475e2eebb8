import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyOn } from '../support/backend.js';
import { listeningUrl, spawnedServers } from '../support/process.js';
import { startServer, type TestServer } from '../support/server.js';

describe('GET /metrics', () => {
  let api: TestServer;
  beforeAll(async () => { api = await startServer(); });
  afterAll(async () => { await api?.close(); });

  it('serves Prometheus metrics: requests and latency by route and status, refusals, GraphQL operations', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 2, perDay: 100 });
    await api.get('/v1/pets', auth);
    await api.get('/v1/pets/12345', auth);
    await api.get('/v1/pets', auth);
    await api.gql('query ListForMetrics { pets { id } }');
    await api.gql('mutation { createPet(input: {name: "m", categoryId: 1}) { id } }');

    const res = await fetch(`${api.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/animal_store_http_requests_total\{method="GET",route="\/v1\/pets",status="200"\} [1-9]/);
    expect(text).toMatch(/animal_store_http_requests_total\{method="GET",route="\/v1\/pets\/:petId",status="404"\} 1/);
    expect(text).toMatch(/animal_store_http_request_duration_seconds_bucket\{le="0.05",method="GET",route="\/v1\/pets",status="200"\} \d+/);
    expect(text).toMatch(/animal_store_rate_limit_refusals_total\{reason="RATE_LIMITED"\} 1/);
    expect(text).toMatch(/animal_store_graphql_operations_total\{operation="ListForMetrics",type="query"\} 1/);
    expect(text).toMatch(/animal_store_graphql_operations_total\{operation="anonymous",type="mutation"\} 1/);
    expect(text).toContain('process_cpu_seconds_total');
  });

  it('keeps unknown paths under one label', async () => {
    await api.get('/v1/nope-1');
    await api.get('/v1/nope-2');
    const text = await (await fetch(`${api.url}/metrics`)).text();
    expect(text).toMatch(/animal_store_http_requests_total\{method="GET",route="unmatched",status="404"\} 2/);
    expect(text).not.toContain('nope-1');
  });

  it('wants the token when METRICS_TOKEN is set', async () => {
    const guarded = await startServer({ env: { METRICS_TOKEN: 's3cret-token' } });
    try {
      const denied = await fetch(`${guarded.url}/metrics`);
      expect(denied.status).toBe(401);
      expect(await denied.json()).toEqual({ code: 'UNAUTHENTICATED', message: expect.stringContaining('METRICS_TOKEN'), status: 401 });
      expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: 'Bearer s3cret-token' } })).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});

describe('GET /v1/docs', () => {
  let api: TestServer;
  beforeAll(async () => { api = await startServer(); });
  afterAll(async () => { await api?.close(); });

  it('serves Swagger UI for the OpenAPI document from this origin, needing no key', async () => {
    const res = await fetch(`${api.url}/v1/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).not.toMatch(/(src|href)="https?:/);
    const initializer = await (await fetch(`${api.url}/v1/docs/swagger-initializer.js`)).text();
    expect(initializer).toContain("url: 'openapi.json'");
    expect(initializer).toContain('validatorUrl: null');
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-initializer.js', 'favicon-32x32.png']) {
      const file = await fetch(`${api.url}/v1/docs/${asset}`);
      expect(file.status).toBe(200);
      expect(Number(file.headers.get('content-length') ?? (await file.arrayBuffer()).byteLength)).toBeGreaterThan(100);
    }
  });

  it("serves swagger-ui-dist's own files, read on first request, to clients with and without gzip", async () => {
    const { readFile } = await import('node:fs/promises');
    const { createRequire } = await import('node:module');
    const { request } = await import('node:http');
    const dist = createRequire(import.meta.url).resolve('swagger-ui-dist/swagger-ui-bundle.js');
    const url = new URL(`${api.url}/v1/docs/swagger-ui-bundle.js`);
    const plain = () => new Promise<{ encoding?: string; body: Buffer }>((resolve, reject) => {
      request({ host: url.hostname, port: url.port, path: url.pathname }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      }).on('error', reject).end();
    });
    const [first, zipped, again] = await Promise.all([plain(), fetch(url), plain()]);
    const file = await readFile(dist);
    expect(first.encoding).toBeUndefined();
    expect(first.body.equals(file)).toBe(true);
    expect(again.body.equals(file)).toBe(true);
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(Buffer.from(await zipped.arrayBuffer()).equals(file)).toBe(true);
  });

  it('gzips large pages for clients that accept it', async () => {
    const { request } = await import('node:http');
    const url = new URL(`${api.url}/graphql`);
    const headers = await new Promise<Record<string, unknown>>((resolve) => {
      request({ host: url.hostname, port: url.port, path: url.pathname, headers: { accept: 'text/html', 'accept-encoding': 'gzip' } }, (res) => {
        let size = 0;
        res.on('data', (c: Buffer) => { size += c.length; });
        res.on('end', () => resolve({ ...res.headers, size }));
      }).end();
    });
    expect(headers['content-encoding']).toBe('gzip');
    expect(headers.size).toBeLessThan(4_000_000);
  });
});

describe('request logs', () => {
  const servers = spawnedServers();

  it('writes one JSON line per request: id, method, route, status, duration, key prefix; never the key or the body', async () => {
    const { server, store } = await servers.start();
    const url = await listeningUrl(server);
    const auth = await keyOn(store);
    const key = auth.authorization.slice('Bearer '.length);
    const res = await fetch(`${url}/v1/pets`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'x-request-id': 'trace-log-1' },
      body: JSON.stringify({ name: 'Secret name', categoryId: 1 }),
    });
    expect(res.status).toBe(201);
    const line = JSON.parse(await server.waitFor(/"requestId":"trace-log-1".*"status":201/));
    expect(line).toMatchObject({
      level: 30, requestId: 'trace-log-1', method: 'POST', path: '/v1/pets', route: '/v1/pets', status: 201,
      durationMs: expect.any(Number), keyPrefix: key.slice(0, 12), client: '127.0.0.1',
    });
    await fetch(`${url}/v1/pets`, { headers: { authorization: 'Bearer ask_guessguessguessguessguessguessguessguessgue' } });
    await server.waitFor(/"status":401/);
    const output = server.output();
    expect(output).not.toContain(key);
    expect(output).not.toContain('Secret name');
    expect(output).not.toContain('guessguess');
    expect(output.toLowerCase()).not.toContain('bearer');
  });
});
