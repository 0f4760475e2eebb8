import { describe, expect, it } from 'vitest';
import { backend, freshStore } from '../../support/backend.js';
import { startServer } from '../../support/server.js';
import { requestStream, timeUntil } from '../../support/request-stream.js';
import { tcpProxy } from '../../support/tcp-proxy.js';
import { sleep } from '../../support/time.js';
import { CACHE_FRESH_MS } from '../../../src/assembly/response-cache.js';

// SQLite is a file in the process: there is no network between them to fail.
describe.runIf(backend === 'mysql')('MySQL out of reach under a stream of requests', () => {
  it.each(['cut', 'blackhole'] as const)('%s: each request gets 503 UNAVAILABLE within 6 s, /readyz turns 503, and service returns within 5 s', async (fault) => {
    const store = await freshStore();
    const url = new URL(store.env.DATABASE_URL!);
    const proxy = await tcpProxy({ host: url.hostname, port: Number(url.port || 3306) });
    url.host = `127.0.0.1:${proxy.port}`;
    const api = await startServer({ store, env: { DATABASE_URL: url.toString() } });
    const stream = requestStream(api);
    try {
      await timeUntil(() => stream.answers.filter((a) => a.status === 200 || a.status === 201).length >= 6, 5_000);
      const faultAt = Date.now();
      if (fault === 'cut') await proxy.cut(); else proxy.blackhole();

      const readyDown = await timeUntil(async () => (await fetch(`${api.url}/readyz`)).status === 503, 3_000);
      // Besides the stream, a burst asked at once into the outage: every one of them must end, and soon.
      const burst = await Promise.all(Array.from({ length: 9 }, async (_, i) => {
        const started = Date.now();
        const [what, send] = ([
          ['GET /v1/pets', () => api.get('/v1/pets?limit=5')], ['POST /v1/pets', () => api.post('/v1/pets', { name: 'During', categoryId: 1 })],
          ['POST /graphql', () => api.gql('{ pets(limit: 5) { id } }')],
        ] as const)[i % 3]!;
        const reply = await send();
        return {
          what, started, ms: Date.now() - started, status: reply.status, code: reply.body?.code ?? reply.body?.errors?.[0]?.extensions?.code,
          hit: reply.headers.get('cache-status') === 'animal-store; hit',
        };
      }));
      // Let the stream run into the outage for 1.5 s, however quickly the burst was refused: the time is the
      // point (requests asked all through an outage), not a guess that something is ready.
      await sleep(Math.max(0, faultAt + 1_500 - Date.now()));
      const during = [...stream.since(faultAt + 50), ...burst];
      const restoredAt = Date.now();
      await proxy.restore();
      const recovered = await timeUntil(async () => {
        const [list, create, gql] = await Promise.all([
          api.get('/v1/pets?limit=1'), api.post('/v1/pets', { name: 'After', categoryId: 1 }), api.gql('{ pets(limit: 1) { id } }'),
        ]);
        return list.status === 200 && create.status === 201 && gql.status === 200 && !gql.body.errors;
      }, 5_000);
      await stream.stop();

      const answered = during.filter((a) => !('started' in a) || a.started + a.ms <= restoredAt);
      expect(answered.length).toBeGreaterThanOrEqual(9);
      for (const answer of answered) {
        // The response cache answers from memory while its outbox reader is current (CACHE_FRESH_MS), no longer.
        if (answer.hit && answer.status === 200) {
          expect(answer.started - faultAt, JSON.stringify(answer)).toBeLessThanOrEqual(CACHE_FRESH_MS + 100);
          continue;
        }
        // A GraphQL response with data (`pets: null` beside the error) is a 200 whose error carries the code.
        expect(answer, JSON.stringify(answer)).toMatchObject({ status: answer.what === 'POST /graphql' ? 200 : 503, code: 'UNAVAILABLE' });
        expect(answer.ms).toBeLessThanOrEqual(6_000);
      }
      const slowest = Math.max(...answered.map((a) => a.ms));
      console.info(`database ${fault}: ${answered.length} requests answered UNAVAILABLE in at most ${slowest} ms; /readyz 503 after ${readyDown} ms; every surface back ${recovered} ms after the database`);
      expect(recovered).toBeLessThan(5_000);
    } finally {
      await stream.stop();
      await api.close();
      await proxy.cut();
    }
  }, 30_000);
});
