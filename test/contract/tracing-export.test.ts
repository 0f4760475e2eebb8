import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { backend, keyOn } from '../support/backend.js';
import { listeningUrl, spawnedServers } from '../support/process.js';

interface OtlpValue { stringValue?: string; intValue?: string | number; boolValue?: boolean }
interface OtlpAttribute { key: string; value: OtlpValue }
interface OtlpSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes: OtlpAttribute[] }
interface OtlpExport { resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: OtlpSpan[] }[] }[] }

/** A span as the receiver got it, with its resource's attributes and its own as plain values. */
interface Received { readonly span: OtlpSpan; readonly resource: Record<string, unknown>; readonly attributes: Record<string, unknown> }

const values = (attributes: OtlpAttribute[]) => Object.fromEntries(attributes.map(({ key, value }) => [
  key, value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.boolValue),
]));

/** An OTLP/HTTP receiver on loopback, as a collector listens: it keeps every JSON export POSTed to /v1/traces. */
async function otlpReceiver() {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => { body += chunk; });
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces' && request.headers['content-type'] === 'application/json') {
        for (const { resource, scopeSpans } of (JSON.parse(body) as OtlpExport).resourceSpans) {
          for (const span of scopeSpans.flatMap((scope) => scope.spans)) {
            received.push({ span, resource: values(resource.attributes), attributes: values(span.attributes) });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    trace: (traceId: string) => received.filter((r) => r.span.traceId === traceId),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const servers = spawnedServers();

describe('traces from the built service', () => {
  it('are exported over OTLP/HTTP to a receiver on loopback; the log line carries the trace id; a receiver gone costs no request', async () => {
    const receiver = await otlpReceiver();
    const { server, store } = await servers.start({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_SERVICE_NAME: 'traced-gateway',
      // An export that fails gives up within half a second (rather than retrying for ten), so the test sees it soon.
      OTEL_EXPORTER_OTLP_TIMEOUT: '500',
      // On the MySQL project, Redis too: its calls are spans of the same trace.
      ...(backend === 'mysql' ? { REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_PREFIX: `test-otlp-${randomBytes(4).toString('hex')}` } : {}),
    });
    const url = await listeningUrl(server);
    const auth = await keyOn(store);
    const traceId = randomBytes(16).toString('hex');
    const clientSpan = randomBytes(8).toString('hex');
    const created = await fetch(`${url}/v1/pets`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'x-request-id': 'otlp-1', traceparent: `00-${traceId}-${clientSpan}-01` },
      body: JSON.stringify({ name: 'Exported', categoryId: 1 }),
    });
    expect(created.status).toBe(201);

    const line = JSON.parse(await server.waitFor(/"requestId":"otlp-1"/));
    expect(line).toMatchObject({ requestId: 'otlp-1', route: '/v1/pets', status: 201, traceId });

    await expect.poll(() => receiver.trace(traceId).map((r) => r.span.name), { timeout: 5_000 }).toContain('graphql.execute');
    const spans = receiver.trace(traceId);
    const request = spans.find((r) => r.span.name === 'POST /v1/pets')!;
    expect(request.resource).toMatchObject({ 'service.name': 'traced-gateway', 'telemetry.sdk.language': 'nodejs' });
    // OTLP's SpanKind: 2 is SERVER.
    expect(request.span).toMatchObject({ parentSpanId: clientSpan, kind: 2 });
    expect(request.attributes).toMatchObject({ 'http.route': '/v1/pets', 'http.response.status_code': 201, 'animal_store.key_id': expect.any(Number) });
    const stepsOf = (parent: Received) => spans.filter((r) => r.span.parentSpanId === parent.span.spanId && r.attributes['db.system.name'] === undefined);
    expect(stepsOf(request).map((r) => r.span.name).sort()).toEqual(['graphql.execute', 'idempotency', 'key look-up', 'limits']);
    if (backend === 'mysql') {
      // Through main.ts's own start: mysql2 (required by TypeORM) and ioredis (imported by ESM) both patched.
      const execute = spans.find((r) => r.span.name === 'graphql.execute')!;
      const inExecute = spans.filter((r) => r.span.parentSpanId === execute.span.spanId);
      expect(inExecute.map((r) => r.attributes['db.system.name'])).toContain('mysql');
      const limits = spans.find((r) => r.span.name === 'limits')!;
      expect(spans.filter((r) => r.span.parentSpanId === limits.span.spanId).map((r) => r.attributes['db.system.name'])).toContain('redis');
    }

    // The collector goes away: requests are answered as before, and the failed exports are logged.
    await receiver.close();
    const later = await fetch(`${url}/v1/pets?limit=1`, { headers: auth });
    expect(later.status).toBe(200);
    await server.waitFor(/"msg":"tracing: /, 10_000);
    expect((await fetch(`${url}/v1/pets?limit=1`, { headers: auth })).status).toBe(200);
  });
});
