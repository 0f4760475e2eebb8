import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { databaseRecords, redisRecords } from '../idempotency/records.js';
import { registeredDocuments } from '../graphql/registered-documents.js';
import { bansInForce } from '../limits/bans-in-force.js';
import { createLimits } from '../limits/limiters.js';
import { scrapedGauge, type Metrics } from '../ops/metrics.js';
import { lastWrites } from '../reads/last-writes.js';
import { deadline, fallbackReport } from '../redis/deadline.js';
import { createStreamSlots } from '../streams/stream-slots.js';
import { outboxHorizonMs } from './live-events.js';
import type { Stores } from './stores.js';

/**
 * How long a key's last write is kept for the response cache: past it, every instance whose reader is
 * current has read it (an id it waited for is given up on after the horizon), and the others do not serve
 * from their cache at all.
 */
const cacheWriteSeconds = (config: Config) => Math.ceil(outboxHorizonMs(config) / 1000) + 3;

/**
 * What the requests of every instance share, in Redis (in process, or the database, without it): the
 * rate limits, each key's last write (with read replicas), the Idempotency-Key records and the stream
 * slots, and the automatic persisted queries clients register. Every Redis call on a request's path waits at most the call deadline (a Cluster in failover
 * holds them longer), and each fallback is counted.
 */
export function sharedState(config: Config, { redis, replicaConfig, dataSource }: Stores, clock: Clock, metrics: Metrics, caching: boolean) {
  const report = fallbackReport((path, reason) => metrics.redisFallbacks.inc({ path, reason }));
  const bound = config.redis && deadline(config.redis.callDeadlineMs);
  const bans = bansInForce(clock, redis && { client: redis.client, prefix: config.redisPrefix });
  scrapedGauge(metrics, 'bans_in_force', 'Keys banned now (BAN_THRESHOLD refusals within BAN_WINDOW_SECONDS), across every instance when Redis answers', () => bans.count());
  const banned = (subject: string, endsAt: number) => {
    metrics.bans.inc();
    bans.started(subject, endsAt);
  };
  return {
    limits: createLimits(
      config.rateLimits, redis?.client, config.redisPrefix, clock, config.redis && { deadlineMs: config.redis.callDeadlineMs, report }, banned,
    ),
    // With replicas (reads wait for the key's last write) or the response cache (a key's reads skip the
    // cache of an instance that has not read its last write through the outbox).
    writes: (replicaConfig || caching) ? lastWrites({
      redis: redis?.client, prefix: config.redisPrefix, clock, bound: bound || ((call) => call), report,
      seconds: Math.max(replicaConfig?.readYourWritesSeconds ?? 0, caching ? cacheWriteSeconds(config) : 0),
    }) : undefined,
    idempotency: redis
      ? redisRecords(redis.client, config.redisPrefix, bound, { hasReplicas: redis.hasReplicas, report })
      : databaseRecords(dataSource, () => clock.now()),
    documents: registeredDocuments({
      ttlSeconds: config.persistedDocuments.ttlSeconds, perKey: config.persistedDocuments.perKey, clock,
      ...(redis && bound ? { redis: { client: redis.client, prefix: config.redisPrefix, bound, report } } : {}),
    }),
    streamSlots: createStreamSlots(config.subscriptionsPerKey, redis && { client: redis.client, prefix: config.redisPrefix, bound }),
  };
}

export type SharedState = ReturnType<typeof sharedState>;
