import { Counter, Gauge, type Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { within } from '../db/deadline.js';
import type { Replicas } from '../db/replicas.js';
import type { RedisConnection } from '../redis/connection.js';
import { onePerScrape } from './one-per-scrape.js';

/** A scrape's probe of a backend answers within this, whatever the backend does. */
const PROBE_MS = 1_000;

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

const READ_TARGETS = ['replica', 'primary'] as const;
const READ_REASONS = ['any', 'caught_up', 'behind', 'recent_write', 'no_replica', 'replica_error'] as const;

/**
 * The database and Redis as this instance sees them: up, and how long a probe took, at each scrape (the
 * request path pays nothing for them); the pools; and where reads went, with each read replica's lag and
 * state. Registered whatever the configuration: `db_replicas` reads 0 without replicas, `redis_up` 0
 * without Redis.
 */
export function backendMetrics(
  { dataSource, redis, replicas }: { dataSource: DataSource; redis?: RedisConnection; replicas?: Replicas },
  registers: Registry[], name: (suffix: string) => string,
) {
  // One probe per scrape serves both gauges of a backend: its time in seconds, or null without an answer.
  const probe = (run: () => Promise<unknown>) => onePerScrape(() => {
    const started = performance.now();
    return within(run(), PROBE_MS).then(() => (performance.now() - started) / 1000, () => null);
  });
  const database = probe(() => dataSource.query('SELECT 1'));
  const redisProbe = redis ? probe(() => redis.client.ping()) : () => Promise.resolve(null);

  new Gauge({
    name: name('db_up'), help: 'Whether the database (the primary) answered the scrape\'s probe within 1 s (1) or not (0)', registers,
    async collect() { this.set((await database()) === null ? 0 : 1); },
  });
  new Gauge({
    name: name('db_probe_duration_seconds'), help: 'How long the scrape\'s probe of the database (SELECT 1) took; 1 when it got no answer', registers,
    async collect() { this.set((await database()) ?? PROBE_MS / 1000); },
  });
  new Gauge({
    name: name('redis_up'), help: 'Whether Redis answered the scrape\'s PING within 1 s (1) or not, or is not configured (0); see redis_configured', registers,
    async collect() { this.set((await redisProbe()) === null ? 0 : 1); },
  });
  new Gauge({
    name: name('redis_configured'), help: 'Whether the instance uses Redis (1) or keeps limits and events in process (0)', registers,
  }).set(redis ? 1 : 0);
  new Gauge({
    name: name('redis_probe_duration_seconds'), help: 'How long the scrape\'s PING of Redis took; 1 when it got no answer, 0 without Redis', registers,
    async collect() { this.set(redis ? (await redisProbe()) ?? PROBE_MS / 1000 : 0); },
  });

  const pool = (): PoolInternals | undefined => {
    const found = (dataSource.driver as { pool?: PoolInternals }).pool;
    return found?.pool ?? found;
  };
  new Gauge({
    name: name('db_pool_connections'), help: 'MySQL pool connections by state (in_use, idle, waiting requests); 0 on the embedded database', labelNames: ['state'], registers,
    collect() {
      const p = pool();
      const states = p?._allConnections ? poolStates(p) : { in_use: 0, idle: 0, waiting: 0 };
      for (const [state, count] of Object.entries(states)) this.set({ state }, count);
    },
  });

  const reads = new Counter({
    name: name('db_reads_total'), help: 'API reads with read replicas configured, by target (replica, primary) and reason (any, caught_up, behind, recent_write, no_replica, replica_error)',
    labelNames: ['target', 'reason'], registers,
  });
  // One child per label pair, made once: a read costs an increment, not a label hash; each starts at 0.
  const children = new Map<string, { inc(): void }>();
  for (const target of READ_TARGETS) {
    for (const reason of READ_REASONS) {
      reads.inc({ target, reason }, 0);
      children.set(`${target} ${reason}`, reads.labels(target, reason));
    }
  }
  replicas?.onRead((target, reason) => children.get(`${target} ${reason}`)?.inc());
  new Gauge({
    name: name('db_replicas'), help: 'Read replicas configured (DATABASE_REPLICA_URLS), by whether they take reads now (serving) or not (out)',
    labelNames: ['state'], registers,
    collect() {
      const states = replicas?.states() ?? [];
      const serving = states.filter((state) => state.status === 'up').length;
      this.set({ state: 'serving' }, serving);
      this.set({ state: 'out' }, states.length - serving);
    },
  });
  new Gauge({
    name: name('db_replica_pool_connections'), help: 'Read replica pool connections by replica and state (in_use, idle, waiting requests)',
    labelNames: ['replica', 'state'], registers,
    collect() {
      for (const [replica, p] of replicas?.pools() ?? []) {
        for (const [state, count] of Object.entries(poolStates(p as unknown as PoolInternals))) this.set({ replica, state }, count);
      }
    },
  });
  new Gauge({
    name: name('db_replica_lag_seconds'), help: 'Each read replica\'s lag as it reports it (absent while unknown)', labelNames: ['replica'], registers,
    collect() {
      this.reset();
      for (const state of replicas?.states() ?? []) if (state.lagSeconds !== null) this.set({ replica: state.replica }, state.lagSeconds);
    },
  });
  new Gauge({
    name: name('db_replica_serving'), help: 'Whether each read replica takes reads now (1) or not (0: down, lagging or not replicating)', labelNames: ['replica'], registers,
    collect() {
      for (const state of replicas?.states() ?? []) this.set({ replica: state.replica }, state.status === 'up' ? 1 : 0);
    },
  });
  return { reads };
}
