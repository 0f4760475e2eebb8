import type { DataSource } from 'typeorm';
import type { RedisConnection } from '../limits/redis.js';

/**
 * `/healthz`: the process answers. `/readyz`: it can serve requests, which needs the database. Without
 * Redis it still serves, limiting per instance: reported as degraded, not unready, so a Redis outage
 * does not take every instance out of the load balancer.
 */
export function createHealth(dataSource: DataSource, redis: RedisConnection | undefined) {
  return {
    healthz: () => Response.json({ status: 'ok' }),
    async readyz(): Promise<Response> {
      const database = await dataSource.query('SELECT 1').then(() => 'up', () => 'down');
      const rateLimits = !redis ? 'in-process' : redis.isUp() ? 'up' : 'degraded';
      const checks = { database, redis: rateLimits };
      if (database === 'down') return Response.json({ status: 'unavailable', checks }, { status: 503 });
      return Response.json({ status: rateLimits === 'degraded' ? 'degraded' : 'ready', checks });
    },
  };
}
