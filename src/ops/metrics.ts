import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DataSource } from 'typeorm';

/** mysql2's pool keeps its counts in private arrays; there is no public API for them. */
interface PoolInternals {
  _allConnections?: { length: number };
  _freeConnections?: { length: number };
  _connectionQueue?: { length: number };
  pool?: PoolInternals;
}

/** One registry per app, so several apps in one process (the tests) never share a series. */
export function createMetrics(dataSource: DataSource) {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  const pool = (): PoolInternals | undefined => {
    const found = (dataSource.driver as { pool?: PoolInternals }).pool;
    return found?.pool ?? found;
  };
  return {
    registry,
    requests: new Counter({ name: 'http_requests_total', help: 'HTTP requests by method, route and status', labelNames: ['method', 'route', 'status'], registers }),
    duration: new Histogram({
      name: 'http_request_duration_seconds', help: 'Time to answer, by method, route and status', labelNames: ['method', 'route', 'status'], registers,
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    }),
    refusals: new Counter({ name: 'rate_limit_refusals_total', help: 'Requests refused with 429, by reason (RATE_LIMITED, API_KEY_BANNED)', labelNames: ['reason'], registers }),
    redisFallbacks: new Counter({
      name: 'redis_fallbacks_total', help: 'Request-path Redis calls answered by the in-process fallback, by path (limits, ...) and reason (deadline, error)',
      labelNames: ['path', 'reason'], registers,
    }),
    operations: new Counter({ name: 'graphql_operations_total', help: 'GraphQL operations on /graphql, by operation name and type', labelNames: ['operation', 'type'], registers }),
    pool: new Gauge({
      name: 'db_pool_connections', help: 'MySQL pool connections by state (in_use, idle, waiting requests)', labelNames: ['state'], registers,
      collect() {
        const p = pool();
        if (!p?._allConnections) return;
        const idle = p._freeConnections?.length ?? 0;
        this.set({ state: 'in_use' }, p._allConnections.length - idle);
        this.set({ state: 'idle' }, idle);
        this.set({ state: 'waiting' }, p._connectionQueue?.length ?? 0);
      },
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
