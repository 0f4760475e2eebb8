import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTracing } from '../../src/tracing/start.js';
import type { TestServer } from '../support/server.js';

// A ratio of 0 for requests without a parent: the draw in tracedRequests refuses every one of them, and
// a parent's own decision still holds. Set before the SDK starts, as an operator sets it.
process.env.OTEL_TRACES_SAMPLER = 'parentbased_traceidratio';
process.env.OTEL_TRACES_SAMPLER_ARG = '0';
const memory = new InMemorySpanExporter();
const tracing = startTracing({ exporter: 'otlp', protocol: 'http/json' }, { processor: new SimpleSpanProcessor(memory) });
const { startServer } = await import('../support/server.js');

let api: TestServer;
beforeAll(async () => { api = await startServer({ tracing }); });
afterAll(async () => {
  await api?.close();
  delete process.env.OTEL_TRACES_SAMPLER;
  delete process.env.OTEL_TRACES_SAMPLER_ARG;
});
beforeEach(() => memory.reset());

const spanId = '00f067aa0ba902b7';
const requestSpans = () => memory.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER);

describe('parentbased_traceidratio: requests without a parent drawn before any span is made', () => {
  it('records no request outside the share (here none), its statements and Redis calls included', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 1_000, perDay: 1_000 });
    for (let i = 0; i < 5; i++) expect((await api.get('/v1/pets?limit=1', auth)).status).toBe(200);
    expect((await api.post('/v1/pets', { name: 'Untraced', categoryId: 1 }, auth)).status).toBe(201);
    // A sampled request after them is exported whole: had the others made spans, they would be there by now.
    const sampled = '7bf92f3577b34da6a3ce929d0e0e4736';
    expect((await api.get('/v1/pets?limit=1', { ...auth, traceparent: `00-${sampled}-${spanId}-01` })).status).toBe(200);
    await expect.poll(() => requestSpans().length).toBe(1);
    expect(memory.getFinishedSpans().every((s) => s.spanContext().traceId === sampled)).toBe(true);
  });

  it("follows a parent's decision: sampled is recorded with its trace id, unsampled is not", async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 1_000, perDay: 1_000 });
    const unsampled = '8bf92f3577b34da6a3ce929d0e0e4736';
    const sampled = '9bf92f3577b34da6a3ce929d0e0e4736';
    expect((await api.get('/v1/pets?limit=1', { ...auth, traceparent: `00-${unsampled}-${spanId}-00` })).status).toBe(200);
    expect((await api.get('/v1/pets?limit=1', { ...auth, traceparent: `00-${sampled}-${spanId}-01` })).status).toBe(200);
    await expect.poll(() => requestSpans().length).toBe(1);
    expect(requestSpans()[0]!.spanContext().traceId).toBe(sampled);
    expect(memory.getFinishedSpans().filter((s) => s.spanContext().traceId === unsampled)).toEqual([]);
  });
});
