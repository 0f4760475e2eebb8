import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import type { Replicas } from '../db/replicas.js';

/** mysql2's pool keeps its counts in private arrays; there is no public API for them. */
interface PoolInternals {
  _allConnections?: { length: number };
  _freeConnections?: { length: number };
  _connectionQueue?: { length: number };
  pool?: PoolInternals;
}

const poolStates = (p: PoolInternals) => {
  const idle = p._freeConnections?.length ?? 0;
  return { in_use: (p._allConnections?.length ?? 0) - idle, idle, waiting: p._connectionQueue?.length ?? 0 };
};

/** One registry per app, so several apps in one process (the tests) never share a series. */
export function createMetrics(dataSource: DataSource, replicas?: Replicas) {
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
    // Per key id (never the key), so operators can reach each client of a field before it is removed.
    deprecatedCalls: new Counter({
      name: 'deprecated_calls_total', help: 'Calls that used a deprecated field, by field (Query.pet) and key id', labelNames: ['field', 'key_id'], registers,
    }),
    pool: new Gauge({
      name: 'db_pool_connections', help: 'MySQL pool connections by state (in_use, idle, waiting requests)', labelNames: ['state'], registers,
      collect() {
        const p = pool();
        if (!p?._allConnections) return;
        for (const [state, count] of Object.entries(poolStates(p))) this.set({ state }, count);
      },
    }),
    ...(replicas ? replicaMetrics(replicas, registers) : {}),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** What the event metrics read at each scrape. */
export interface EventGauges {
  /** The outbox's newest id less this instance's position (everything up to it handed on). */
  lag(): Promise<number>;
  /** Ids above the position still awaited. */
  unsettled(): number;
  /** Webhook deliveries waiting for an attempt. */
  retryQueue(): Promise<number>;
}

/** The outbox's lag on this instance, and webhook deliveries: attempts by outcome, and the queue waiting. */
export function eventMetrics(metrics: Metrics, gauges: EventGauges) {
  const registers = [metrics.registry];
  // A scrape while the database is away shows what it can: the gauge keeps its last value.
  const safely = (read: () => Promise<number>, set: (value: number) => void) => read().then(set, () => undefined);
  new Gauge({
    name: 'outbox_lag_events', help: 'Events in the outbox this instance has not handed on yet (its newest id less the reader\'s position)', registers,
    collect() { return safely(gauges.lag, (value) => this.set(value)); },
  });
  new Gauge({
    name: 'outbox_unsettled_ids', help: 'Ids above the reader\'s position still awaited (a transaction not yet committed, or rolled back)', registers,
    collect() { this.set(gauges.unsettled()); },
  });
  new Gauge({
    name: 'webhook_retry_queue', help: 'Webhook deliveries waiting for an attempt (new ones and retries)', registers,
    collect() { return safely(gauges.retryQueue, (value) => this.set(value)); },
  });
  return new Counter({ name: 'webhook_deliveries_total', help: 'Webhook delivery attempts by outcome (delivered, retry, failed, dropped)', labelNames: ['outcome'], registers });
}

/** Where reads went and why, and each replica's pool, lag and state: only with read replicas. */
function replicaMetrics(replicas: Replicas, registers: Registry[]) {
  const reads = new Counter({
    name: 'db_reads_total', help: 'API reads by target (replica, primary) and reason (any, caught_up, behind, recent_write, no_replica, replica_error)',
    labelNames: ['target', 'reason'], registers,
  });
  // One child per label pair, found once: a read costs an increment, not a label hash.
  const children = new Map<string, { inc(): void }>();
  replicas.onRead((target, reason) => {
    const name = `${target} ${reason}`;
    let child = children.get(name);
    if (!child) children.set(name, child = reads.labels(target, reason));
    child.inc();
  });
  return {
    reads,
    replicaPools: new Gauge({
      name: 'db_replica_pool_connections', help: 'Read replica pool connections by replica and state (in_use, idle, waiting requests)',
      labelNames: ['replica', 'state'], registers,
      collect() {
        for (const [replica, p] of replicas.pools()) {
          for (const [state, count] of Object.entries(poolStates(p as unknown as PoolInternals))) this.set({ replica, state }, count);
        }
      },
    }),
    replicaLag: new Gauge({
      name: 'db_replica_lag_seconds', help: 'Each read replica\'s lag as it reports it (absent while unknown)', labelNames: ['replica'], registers,
      collect() {
        this.reset();
        for (const state of replicas.states()) if (state.lagSeconds !== null) this.set({ replica: state.replica }, state.lagSeconds);
      },
    }),
    replicaServing: new Gauge({
      name: 'db_replica_serving', help: 'Whether each read replica takes reads now (1) or not (0: down, lagging or not replicating)', labelNames: ['replica'], registers,
      collect() {
        for (const state of replicas.states()) this.set({ replica: state.replica }, state.status === 'up' ? 1 : 0);
      },
    }),
  };
}
