import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/auth/keys.js';
import { PROMTOOL, promtool, scrape, seriesValue } from '../support/metrics.js';
import { startServer, type TestServer } from '../support/server.js';

/**
 * The metrics as an operator meets them: Prometheus's own linter on a real scrape, every series there
 * whatever the configuration, and the series a dashboard or an alert reads moving as the traffic does.
 */
describe('/metrics for operators', () => {
  let api: TestServer;
  beforeAll(async () => {
    api = await startServer({ rateLimits: { banThreshold: 2, banWindowSeconds: 60, banSeconds: 60 } });
  });
  afterAll(async () => { await api?.close(); });

  it.skipIf(!existsSync(PROMTOOL) && process.env.CI !== 'true')('passes `promtool check metrics` after traffic of every kind', async () => {
    await api.get('/v1/pets');
    await api.gql('query Lint { pets { id } }');
    await fetch(`${api.url}/v1/pets`);
    const text = await scrape(api.url);
    const { code, output } = await promtool(['check', 'metrics'], text);
    expect(output).toBe('');
    expect(code).toBe(0);
  });

  it('names every series of ours with the service prefix, and registers them all whatever the configuration', async () => {
    await api.get('/v1/pets');
    const text = await scrape(api.url);
    const ours = [...text.matchAll(/^# TYPE (\S+) /gm)].map(([, name]) => name!).filter((name) => !/^(process|nodejs)_/.test(name));
    expect(ours.filter((name) => !name.startsWith('animal_store_'))).toEqual([]);
    for (const name of [
      'build_info', 'draining', 'heap_limit_bytes', 'memory_limit_bytes', 'http_requests_total', 'http_request_duration_seconds', 'http_requests_in_flight',
      'probe_requests_total', 'rate_limit_refusals_total', 'bans_total', 'bans_in_force', 'auth_failures_total', 'redis_fallbacks_total',
      'graphql_operations_total', 'graphql_operation_duration_seconds', 'graphql_errors_total', 'deprecated_calls_total', 'idempotency_requests_total',
      'db_up', 'db_probe_duration_seconds', 'redis_up', 'redis_configured', 'redis_probe_duration_seconds', 'db_pool_connections', 'db_reads_total',
      'db_replicas', 'db_replica_pool_connections', 'db_replica_lag_seconds', 'db_replica_serving', 'outbox_lag_events', 'outbox_unsettled_ids',
      'outbox_pruned_events_total', 'subscriptions_open', 'subscription_overflows_total', 'webhook_pending_deliveries', 'webhook_oldest_pending_age_seconds',
      'webhook_deliveries_total', 'webhook_delivery_duration_seconds', 'response_cache_requests_total', 'response_cache_evictions_total',
      'response_cache_invalidations_total', 'response_cache_bytes', 'response_cache_entries',
    ]) expect(ours, name).toContain(`animal_store_${name}`);
    // No gauge named like a counter (promtool's complaint about prom-client's defaults).
    expect(text).not.toMatch(/^# TYPE \S+_total gauge$/m);
    expect(seriesValue(text, 'animal_store_build_info', { version: '1.0.0', node_version: process.version })).toBe(1);
    expect(seriesValue(text, 'animal_store_db_up')).toBe(1);
    expect(seriesValue(text, 'animal_store_redis_up')).toBe(api.config.redis ? 1 : 0);
    expect(seriesValue(text, 'animal_store_redis_configured')).toBe(api.config.redis ? 1 : 0);
    expect(seriesValue(text, 'animal_store_db_replicas', { state: 'serving' })).toBe(0);
    expect(seriesValue(text, 'animal_store_db_reads_total', { target: 'replica', reason: 'any' })).toBe(0);
    expect(seriesValue(text, 'animal_store_draining')).toBe(0);
    expect(seriesValue(text, 'animal_store_heap_limit_bytes')).toBeGreaterThan(64 * 2 ** 20);
    // Latency buckets reach past the request deadline (30 s).
    expect(text).toMatch(/^animal_store_http_request_duration_seconds_bucket\{le="60",/m);
  });

  it('counts probes and scrapes apart from traffic, and requests in flight', async () => {
    const before = await scrape(api.url);
    await fetch(`${api.url}/healthz`);
    await fetch(`${api.url}/readyz`);
    const after = await scrape(api.url);
    expect(seriesValue(after, 'animal_store_probe_requests_total', { route: '/healthz', status: '200' }))
      .toBe((seriesValue(before, 'animal_store_probe_requests_total', { route: '/healthz', status: '200' }) ?? 0) + 1);
    expect(seriesValue(after, 'animal_store_probe_requests_total', { route: '/metrics', status: '200' }))
      .toBe((seriesValue(before, 'animal_store_probe_requests_total', { route: '/metrics', status: '200' }) ?? 0) + 1);
    expect(after).not.toMatch(/^animal_store_http_requests_total\{[^}]*route="\/(healthz|readyz|metrics)"/m);
    // Nothing is being answered while the scrape is (the scrape is a probe).
    expect(seriesValue(after, 'animal_store_http_requests_in_flight')).toBe(0);
  });

  it('counts 401s by reason, never naming the key', async () => {
    const valid = generateKey();
    const mistyped = `${valid.slice(0, -1)}${valid.endsWith('a') ? 'b' : 'a'}`;
    await fetch(`${api.url}/v1/pets/1`);
    await fetch(`${api.url}/v1/pets/1`, { headers: { authorization: 'Basic abc' } });
    await fetch(`${api.url}/v1/pets/1`, { headers: { authorization: `Bearer ${mistyped}` } });
    await fetch(`${api.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${valid}`, 'content-type': 'application/json' }, body: '{"query":"{ pets { id } }"}' });
    const text = await scrape(api.url);
    for (const reason of ['missing', 'malformed', 'mistyped', 'unknown']) {
      expect(seriesValue(text, 'animal_store_auth_failures_total', { reason }), reason).toBeGreaterThanOrEqual(1);
    }
    expect(text).not.toContain(valid.slice(4, 20));
  });

  it('counts GraphQL errors in answers with data by code, and times each operation', async () => {
    const before = await scrape(api.url);
    const reply = await api.gql('query ErrorsByCode { pets(limit: 1) { id } order(orderId: 987654321) { id } }');
    expect(reply.status).toBe(200);
    const after = await scrape(api.url);
    const notFound = (text: string) => seriesValue(text, 'animal_store_graphql_errors_total', { code: 'NOT_FOUND' }) ?? 0;
    expect(notFound(after) - notFound(before)).toBe(1);
    expect(seriesValue(after, 'animal_store_graphql_operation_duration_seconds_count', { operation: 'ErrorsByCode', type: 'query' })).toBe(1);
  });

  it('counts Idempotency-Key outcomes: first, replayed, reused', async () => {
    const key = `metrics-${Date.now()}`;
    const body = { name: 'Idem', categoryId: 1 };
    expect((await api.post('/v1/pets', body, { 'idempotency-key': key })).status).toBe(201);
    expect((await api.post('/v1/pets', body, { 'idempotency-key': key })).status).toBe(201);
    expect((await api.post('/v1/pets', { ...body, name: 'Other' }, { 'idempotency-key': key })).status).toBe(422);
    const text = await scrape(api.url);
    for (const outcome of ['first', 'replayed', 'reused']) {
      expect(seriesValue(text, 'animal_store_idempotency_requests_total', { outcome }), outcome).toBeGreaterThanOrEqual(1);
    }
  });

  it('counts bans as they start, and the bans in force', async () => {
    const { auth } = await api.newKey('enterprise', { perMinute: 1, perDay: 1_000 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await fetch(`${api.url}/v1/pets`, { headers: auth })).status);
    expect(statuses).toEqual([200, 429, 429, 429]);
    const text = await scrape(api.url);
    expect(seriesValue(text, 'animal_store_bans_total')).toBe(1);
    expect(seriesValue(text, 'animal_store_bans_in_force')).toBe(1);
    expect(seriesValue(text, 'animal_store_rate_limit_refusals_total', { reason: 'API_KEY_BANNED' })).toBeGreaterThanOrEqual(1);
    api.clock.advance(61_000);
    expect(seriesValue(await scrape(api.url), 'animal_store_bans_in_force')).toBe(0);
  });
});

describe('/metrics in the drain window', () => {
  it('reads draining 1 once the instance is told to stop', async () => {
    // The process tests send the real SIGTERM; here the app's own switch, as main.ts throws it.
    const api = await startServer();
    try {
      expect(seriesValue(await scrape(api.url), 'animal_store_draining')).toBe(0);
      api.leave();
      expect(seriesValue(await scrape(api.url), 'animal_store_draining')).toBe(1);
    } finally {
      await api.close();
    }
  });
});
