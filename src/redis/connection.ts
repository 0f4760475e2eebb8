import type { Cluster } from 'ioredis';
import type { RedisConfig } from '../config.js';
import { log } from '../log.js';
import { createClient, describeTopology, type RedisClient } from './clients.js';

export interface RedisConnection {
  readonly client: RedisClient;
  readonly topology: RedisConfig['topology']['kind'];
  /** Resolves once connected, or after `ms` without: startup waits this long, then serves degraded. */
  ready(ms: number): Promise<boolean>;
  /** Whether commands reach Redis now; while not, limits are kept per instance. */
  isUp(): boolean;
  /**
   * Whether the data is copied to replicas a failover would promote: through Sentinels, or on a Cluster
   * whose masters have replicas. A single Redis's replicas (if any) are not the service's to know.
   */
  hasReplicas(): boolean;
  /** On a Cluster, each master and whether it answers its PINGs; undefined on one Redis or a Sentinel's master. */
  nodes(): Record<string, 'up' | 'down'> | undefined;
  /** A new connection for subscribing, to the same topology (the caller closes it). */
  subscriber(): RedisClient;
  describe(): string;
  close(): Promise<void>;
}

/** How often an idle connection is checked: a Redis that hangs (no close, no error) is found this fast. */
const HEALTH_CHECK_MS = 1_000;

const isCluster = (client: RedisClient): client is Cluster => 'nodes' in client && typeof client.nodes === 'function';
const addressOf = (node: { options: { host?: string; port?: number } }) => `${node.options.host}:${node.options.port}`;

/** How long a Cluster's answer to "has it replicas?" is kept: its slot map changes only on resharding or failover. */
const REPLICAS_CHECK_MS = 5_000;
const replicasSeen = new WeakMap<Cluster, { readonly at: number; readonly found: boolean }>();

/**
 * From the client's slot map, which lists each slot's master and then its replicas (ioredis keeps replica
 * connections only when it reads from them, so its node list cannot tell).
 */
function clusterHasReplicas(client: Cluster): boolean {
  const seen = replicasSeen.get(client);
  if (seen && Date.now() - seen.at < REPLICAS_CHECK_MS) return seen.found;
  const found = client.slots.some((holders) => holders.length > 1);
  replicasSeen.set(client, { at: Date.now(), found });
  return found;
}

/**
 * Never waits for Redis (see clients.ts). One warning per outage.
 *
 * A Redis that stops answering without closing the connection (a hung host, a partition) is found by a
 * PING each second (two unanswered in a row): a single Redis's connection is dropped and reopened, so
 * the limiter stops waiting out command timeouts and uses its insurance at once, until Redis answers
 * again. On a Cluster each master is pinged: one that hangs is reported, and the client follows the
 * Cluster's own failover of it.
 */
export function connectRedis(config: RedisConfig): RedisConnection {
  const client = createClient(config, 'commands');
  const where = describeTopology(config);
  let up = false;
  let warned = false;
  const down = (reason: string) => {
    up = false;
    if (warned) return;
    warned = true;
    log.warn({ redis: where, reason }, 'Redis is unreachable: limiting per instance until it returns');
  };
  client.on('ready', () => {
    up = true;
    if (warned) log.info({ redis: where }, 'Redis is back: limits are shared again');
    warned = false;
  });
  client.on('error', (error: Error) => down(error.message));
  client.on('close', () => down('connection closed'));

  const unanswered = new Map<string, number>();
  const checked = (): { node: string; ping: () => Promise<unknown>; reset?: () => void }[] => (isCluster(client)
    ? client.nodes('master').map((node) => ({ node: addressOf(node), ping: () => node.ping() }))
    : [{ node: where, ping: () => client.ping(), reset: () => client.disconnect(true) }]);
  const healthCheck = setInterval(() => {
    if (client.status !== 'ready') { unanswered.clear(); return; }
    for (const { node, ping, reset } of checked()) {
      ping().then(() => {
        if ((unanswered.get(node) ?? 0) >= 2) log.info({ redis: where, node }, 'a Redis node answers again');
        unanswered.set(node, 0);
      }, (error: Error) => {
        // Two in a row: one slow answer on a loaded host is not a hung Redis.
        if (client.status !== 'ready') return;
        const count = (unanswered.get(node) ?? 0) + 1;
        unanswered.set(node, count);
        if (count !== 2) return;
        if (reset) {
          unanswered.set(node, 0);
          down(`no answer to PING: ${error.message}`);
          reset();
        } else {
          log.warn({ redis: where, node, reason: error.message }, 'a Redis Cluster master does not answer: its keys are counted per instance until it, or its replica, does');
        }
      });
    }
  }, HEALTH_CHECK_MS).unref();

  return {
    client,
    topology: config.topology.kind,
    ready: (ms) => new Promise((resolve) => {
      if (up) return resolve(true);
      const timer = setTimeout(() => { client.off('ready', onReady); resolve(false); }, ms);
      const onReady = () => { clearTimeout(timer); resolve(true); };
      client.once('ready', onReady);
    }),
    isUp: () => up,
    hasReplicas: () => (isCluster(client) ? clusterHasReplicas(client) : config.topology.kind === 'sentinel'),
    nodes() {
      if (!isCluster(client)) return undefined;
      return Object.fromEntries(checked().map(({ node }) => [node, (unanswered.get(node) ?? 0) >= 2 ? 'down' : 'up']));
    },
    subscriber: () => createClient(config, 'subscriber'),
    describe: () => where,
    async close() {
      clearInterval(healthCheck);
      client.removeAllListeners('close');
      client.disconnect();
    },
  };
}
