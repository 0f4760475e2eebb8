import { describe, expect, it } from 'vitest';
import { backend, freshStore } from '../support/backend.js';
import { startServer } from '../support/server.js';
import { tcpProxy } from '../support/tcp-proxy.js';

describe('the database', () => {
  it('refuses to start on a database migrated by a newer build', async () => {
    const store = await freshStore();
    try {
      const first = await startServer({ store });
      await first.stop();
      await store.exec("INSERT INTO migrations (timestamp, name) VALUES (4102444800000, 'FromTheFuture4102444800000')");
      await expect(startServer({ store })).rejects.toThrow(/newer than this build.*FromTheFuture4102444800000/);
    } finally {
      await store.drop();
    }
  });

  it.runIf(backend === 'mysql')('answers 503 UNAVAILABLE while MySQL is unreachable, and recovers when it returns', async () => {
    const store = await freshStore();
    const url = new URL(store.env.DATABASE_URL!);
    const proxy = await tcpProxy({ host: url.hostname, port: Number(url.port || 3306) });
    url.host = `127.0.0.1:${proxy.port}`;
    const api = await startServer({ store, env: { DATABASE_URL: url.toString() } });
    try {
      expect((await api.post('/v1/pets', { name: 'Before', categoryId: 1 })).status).toBe(201);
      await proxy.cut();

      const list = await api.get('/v1/pets');
      expect(list.status).toBe(503);
      expect(list.headers.get('content-type')).toMatch(/^application\/json/);
      expect(list.body).toEqual({ code: 'UNAVAILABLE', message: expect.any(String), status: 503 });
      const create = await api.post('/v1/pets', { name: 'During', categoryId: 1 });
      expect(create.status).toBe(503);
      const gql = await api.gql('{ pets { id } }');
      expect(gql.body.errors[0].extensions).toEqual({ code: 'UNAVAILABLE', status: 503 });
      const ready = await fetch(`${api.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'unavailable', checks: { database: 'down', redis: 'up' } });
      expect((await fetch(`${api.url}/healthz`)).status).toBe(200);

      await proxy.restore();
      const after = await api.get('/v1/pets');
      expect(after.status).toBe(200);
      expect(after.body.map((p: { name: string }) => p.name)).toEqual(['Before']);
    } finally {
      await api.close();
      await proxy.cut();
    }
  });
});
