import type { DataSource } from 'typeorm';

/** `/healthz`: the process answers. `/readyz`: it can reach what it needs to serve requests. */
export function createHealth(dataSource: DataSource) {
  return {
    healthz: () => Response.json({ status: 'ok' }),
    async readyz(): Promise<Response> {
      const database = await dataSource.query('SELECT 1').then(() => 'up', () => 'down');
      if (database === 'up') return Response.json({ status: 'ready', checks: { database } });
      return Response.json({ status: 'unavailable', checks: { database } }, { status: 503 });
    },
  };
}
