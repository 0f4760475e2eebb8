import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisConfig } from '../config.js';

/** A Redis client of any topology: a Cluster client takes the same commands, each sent to its key's slot. */
export type RedisClient = Redis | Cluster;

/**
 * What requests use: never waits for Redis. Commands fail at once while it is away (no offline queue) or
 * slow (a short command timeout); concurrent commands of one request leave in one write (auto-pipelining).
 */
const COMMANDS: RedisOptions = {
  enableOfflineQueue: false,
  enableAutoPipelining: true,
  maxRetriesPerRequest: 1,
  connectTimeout: 2_000,
  retryStrategy: (attempt) => Math.min(attempt * 250, 2_000),
};

/**
 * A connection in subscriber mode can do nothing else: one of its own, which waits out outages (its
 * subscriptions are renewed on reconnect, and after a failover on the new master) instead of failing fast.
 */
const SUBSCRIBER: RedisOptions = {
  maxRetriesPerRequest: null,
  retryStrategy: (attempt) => Math.min(attempt * 250, 2_000),
};

export type Purpose = 'commands' | 'subscriber';

/** A client for the configured topology, with the options its purpose needs. */
export function createClient(config: RedisConfig, purpose: Purpose): RedisClient {
  const options = purpose === 'commands' ? { ...COMMANDS, commandTimeout: config.callDeadlineMs } : SUBSCRIBER;
  const auth: RedisOptions = {
    ...(config.username ? { username: config.username } : {}),
    ...(config.password ? { password: config.password } : {}),
    ...(config.tls ? { tls: {} } : {}),
  };
  const { topology } = config;
  switch (topology.kind) {
    case 'single':
      return new Redis(topology.url, { ...options, ...auth });
    case 'sentinel':
      return new Redis({
        ...options, ...auth,
        sentinels: topology.sentinels.map(({ host, port }) => ({ host, port })),
        name: topology.master,
        ...(topology.sentinelUsername ? { sentinelUsername: topology.sentinelUsername } : {}),
        ...(topology.sentinelPassword ? { sentinelPassword: topology.sentinelPassword } : {}),
        ...(config.tls ? { enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
        // Sentinel answers with the new master within its own failover time; ask again that often.
        sentinelRetryStrategy: (attempt) => Math.min(attempt * 250, 2_000),
      });
    case 'cluster': {
      const { enableOfflineQueue, enableAutoPipelining, retryStrategy, ...perNode } = options;
      const cluster: ClusterOptions = {
        redisOptions: { ...perNode, ...auth },
        clusterRetryStrategy: retryStrategy as ClusterOptions['clusterRetryStrategy'],
        // Shard channels (SSUBSCRIBE) reach only their slot's shard: events do not cross every node.
        ...(purpose === 'subscriber' ? { shardedSubscribers: true } : { enableOfflineQueue, enableAutoPipelining }),
      };
      return new Cluster(topology.nodes.map(({ host, port }) => ({ host, port })), cluster);
    }
  }
}

/** Where the operator pointed the service, for the startup log and errors; never with a password. */
export function describeTopology(config: RedisConfig): string {
  const { topology } = config;
  const list = (nodes: readonly { host: string; port: number }[]) => nodes.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`).join(', ');
  switch (topology.kind) {
    case 'single': {
      const url = new URL(topology.url);
      return `Redis at ${url.hostname}:${url.port || 6379}`;
    }
    case 'sentinel':
      return `Redis master "${topology.master}" through Sentinels ${list(topology.sentinels)}`;
    case 'cluster':
      return `Redis Cluster through ${list(topology.nodes)}`;
  }
}
