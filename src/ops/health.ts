import type { DataSource } from 'typeorm';
import { within } from '../db/deadline.js';
import type { Replicas } from '../db/replicas.js';
import type { RedisConnection } from '../redis/connection.js';
import { Response } from '../pipeline/response.js';

/** A probe answers within its load balancer's timeout, whatever the database does. */
const PROBE_QUERY_MS = 1_000;

/**
 * `/healthz`: the process answers. `/readyz`: it can serve requests, which needs the database. Without
 * Redis it still serves, limiting per instance: reported as degraded, not unready, so a Redis outage
 * does not take every instance out of the load balancer. Read replicas are the same: one that takes no
 * reads (its reads go to the primary) makes the instance degraded, never unready.
 */
export function createHealth(dataSource: DataSource, redis: RedisConnection | undefined, replicas: Replicas | undefined, leaving: () => boolean) {
  return {
    healthz: () => Response.json({ status: 'ok' }),
    async readyz(): Promise<Response> {
      // Told to stop: out of the load balancer first, while requests are still served (the drain window).
      if (leaving()) return Response.json({ status: 'draining', checks: {} }, { status: 503 });
      const database = await within(dataSource.query('SELECT 1'), PROBE_QUERY_MS).then(() => 'up', () => 'down');
      const rateLimits = !redis ? 'in-process' : redis.isUp() ? 'up' : 'degraded';
      const nodes = redis?.nodes();
      const replicaStates = replicas?.states();
      const checks = { database, redis: rateLimits, ...(nodes ? { redisNodes: nodes } : {}), ...(replicaStates ? { replicas: replicaStates } : {}) };
      if (database === 'down') return Response.json({ status: 'unavailable', checks }, { status: 503 });
      const degraded = rateLimits === 'degraded' || replicaStates?.some((replica) => replica.status !== 'up');
      return Response.json({ status: degraded ? 'degraded' : 'ready', checks });
    },
  };
}
