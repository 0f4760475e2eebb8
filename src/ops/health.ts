import type { DataSource } from 'typeorm';
import { within } from '../db/deadline.js';
import type { RedisConnection } from '../redis/connection.js';
import { Response } from '../pipeline/response.js';

/** A probe answers within its load balancer's timeout, whatever the database does. */
const PROBE_QUERY_MS = 1_000;

/**
 * `/healthz`: the process answers. `/readyz`: it can serve requests, which needs the database. Without
 * Redis it still serves, limiting per instance: reported as degraded, not unready, so a Redis outage
 * does not take every instance out of the load balancer.
 */
export function createHealth(dataSource: DataSource, redis: RedisConnection | undefined) {
  return {
    healthz: () => Response.json({ status: 'ok' }),
    async readyz(): Promise<Response> {
      const database = await within(dataSource.query('SELECT 1'), PROBE_QUERY_MS).then(() => 'up', () => 'down');
      const rateLimits = !redis ? 'in-process' : redis.isUp() ? 'up' : 'degraded';
      const nodes = redis?.nodes();
      const checks = { database, redis: rateLimits, ...(nodes ? { redisNodes: nodes } : {}) };
      if (database === 'down') return Response.json({ status: 'unavailable', checks }, { status: 503 });
      return Response.json({ status: rateLimits === 'degraded' ? 'degraded' : 'ready', checks });
    },
  };
}
