import { getHeapStatistics } from 'node:v8';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { NO_KEY_REASONS } from '../auth/authenticate.js';
import type { Replicas } from '../db/replicas.js';
import type { RedisConnection } from '../redis/connection.js';
import { backendMetrics } from './backend-metrics.js';
import { buildInfo } from './build-info.js';
import { memoryLimitBytes } from './memory-limit.js';

/**
 * Every metric of ours starts with this (a shared Prometheus holds other services' `http_requests_total`
 * too); Node's process metrics keep their conventional names (`process_*`, `nodejs_*`).
 */
const PREFIX = 'animal_store_';

/**
 * Past the request deadline (30 s) and the statement deadline (5 s), so a timeout lands in a bucket of
 * its own rather than in +Inf.
 */
export const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * prom-client's default set has these gauges named like counters (promtool refuses them); the same
 * numbers are in `nodejs_active_handles`, `_requests` and `_resources` by type, whose sum they are.
 */
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** What useIdempotency reports (its IdempotencyOutcome), each counted from 0. */
const IDEMPOTENCY_OUTCOMES = ['first', 'replayed', 'reused', 'in_progress'];
/** How the response cache answered a cacheable read (cache/use-response-cache.ts), and the 304s of every read. */
const CACHE_OUTCOMES = ['hit', 'miss', 'bypass', 'not_modified'];

export interface MetricSources {
  readonly dataSource: DataSource;
  readonly redis?: RedisConnection;
  readonly replicas?: Replicas;
  /** Whether the instance is in its drain window (told to stop). */
  readonly leaving: () => boolean;
}

/**
 * One registry per app, so several apps in one process (the tests) never share a series. Every metric is
 * registered whatever the configuration: a replica metric reads zero without replicas, a Redis one with
 * Redis away, so dashboards and alerts never meet a missing series.
 */
export function createMetrics({ dataSource, redis, replicas, leaving }: MetricSources) {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name);
  const name = (suffix: string) => `${PREFIX}${suffix}`;

  const info = buildInfo();
  new Gauge({ name: name('build_info'), help: 'Always 1: the service\'s version and the Node.js it runs on', labelNames: ['version', 'node_version'], registers })
    .set({ version: info.version, node_version: process.version }, 1);
  new Gauge({
    name: name('draining'), help: '1 while the instance is told to stop (its drain window: /readyz fails, requests are still served)', registers,
    collect() { this.set(leaving() ? 1 : 0); },
  });
  new Gauge({ name: name('heap_limit_bytes'), help: 'The V8 heap\'s size limit (--max-old-space-size and the young generation)', registers })
    .set(getHeapStatistics().heap_size_limit);
  // 0 when nothing caps the process (no cgroup limit): alerts divide by it only where it is above 0.
  new Gauge({ name: name('memory_limit_bytes'), help: 'The memory limit of the process\'s container (cgroup), 0 without one', registers })
    .set(memoryLimitBytes());

  // A plain count that a request steps up and down, read at the scrape.
  const inFlight = { count: 0 };
  new Gauge({
    name: name('http_requests_in_flight'), help: 'API and page requests being answered now', registers,
    collect() { this.set(inFlight.count); },
  });

  const counters = {
    requests: new Counter({
      name: name('http_requests_total'), help: 'API and page requests answered, by method, route and status (probes and scrapes apart)',
      labelNames: ['method', 'route', 'status'], registers,
    }),
    duration: new Histogram({
      name: name('http_request_duration_seconds'), help: 'Time to answer an API or page request, by method, route and status', labelNames: ['method', 'route', 'status'], registers,
      buckets: LATENCY_BUCKETS,
    }),
    probes: new Counter({
      name: name('probe_requests_total'), help: 'Requests to /healthz, /readyz and /metrics (load balancers and scrapers), by route and status',
      labelNames: ['route', 'status'], registers,
    }),
    refusals: new Counter({ name: name('rate_limit_refusals_total'), help: 'Requests refused with 429, by reason (RATE_LIMITED, API_KEY_BANNED)', labelNames: ['reason'], registers }),
    bans: new Counter({ name: name('bans_total'), help: 'Bans this instance started (a key refused too often within the ban window)', registers }),
    authFailures: new Counter({
      name: name('auth_failures_total'), help: 'Requests refused with 401, by reason (missing, malformed, mistyped, unknown, revoked, expired)',
      labelNames: ['reason'], registers,
    }),
    redisFallbacks: new Counter({
      name: name('redis_fallbacks_total'), help: 'Request-path Redis calls answered by the in-process fallback, by path (limits, ...) and reason (deadline, error)',
      labelNames: ['path', 'reason'], registers,
    }),
    operations: new Counter({
      name: name('graphql_operations_total'), help: 'GraphQL operations executed (/graphql and WebSockets), by operation name and type',
      labelNames: ['operation', 'type'], registers,
    }),
    operationDuration: new Histogram({
      name: name('graphql_operation_duration_seconds'), help: 'Time to execute a query or mutation, by operation name and type (subscriptions apart)',
      labelNames: ['operation', 'type'], registers, buckets: LATENCY_BUCKETS,
    }),
    graphqlErrors: new Counter({
      name: name('graphql_errors_total'), help: 'Errors in executed GraphQL results (a 200 with data may carry them), by code', labelNames: ['code'], registers,
    }),
    // By field only: a key's own calls are on its record (`keys show`), where they do not grow a series per key.
    deprecatedCalls: new Counter({ name: name('deprecated_calls_total'), help: 'Calls that used a deprecated field, by field (Query.pet)', labelNames: ['field'], registers }),
    idempotency: new Counter({
      name: name('idempotency_requests_total'),
      help: 'Requests with an Idempotency-Key by outcome (first, replayed, reused: 422, in_progress: 409)', labelNames: ['outcome'], registers,
    }),
    responseCache: new Counter({
      name: name('response_cache_requests_total'),
      help: 'Cacheable reads by how the response cache answered (hit, miss, bypass: it could not know the entry current), and every 304 (not_modified)',
      labelNames: ['outcome'], registers,
    }),
    cacheEvictions: new Counter({ name: name('response_cache_evictions_total'), help: 'Cached answers pushed out to stay within RESPONSE_CACHE_MB', registers }),
    cacheInvalidations: new Counter({ name: name('response_cache_invalidations_total'), help: 'Cached answers dropped because a record they read changed', registers }),
  };
  // Each known reason and outcome starts at 0, so a rate() or an increase() of it is 0 rather than empty.
  for (const reason of ['RATE_LIMITED', 'API_KEY_BANNED']) counters.refusals.inc({ reason }, 0);
  for (const reason of NO_KEY_REASONS) counters.authFailures.inc({ reason }, 0);
  for (const outcome of IDEMPOTENCY_OUTCOMES) counters.idempotency.inc({ outcome }, 0);
  for (const outcome of CACHE_OUTCOMES) counters.responseCache.inc({ outcome }, 0);
  return { registry, name, inFlight, ...counters, ...backendMetrics({ dataSource, redis, replicas }, registers, name) };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** A gauge read at each scrape; a read that fails (the database away) keeps its last value. */
export function scrapedGauge(metrics: Metrics, suffix: string, help: string, read: () => number | Promise<number>): Gauge {
  return new Gauge({
    name: metrics.name(suffix), help, registers: [metrics.registry],
    collect() {
      const value = read();
      if (typeof value === 'number') this.set(value);
      else return value.then((found) => this.set(found), () => undefined);
      return undefined;
    },
  });
}
