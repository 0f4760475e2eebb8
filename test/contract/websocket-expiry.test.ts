import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { createKey } from '../../src/auth/key-admin.js';
import { apiKeyStore } from '../../src/db/api-keys.js';
import { openStore } from '../support/backend.js';
import { realClock } from '../support/clock.js';
import { startServer, type TestServer } from '../support/server.js';
import { sleep } from '../support/time.js';
import { wsClient } from '../support/websocket.js';

/**
 * A WebSocket lives no longer than its caller's credentials: closed at the key's expiry itself, not at
 * the next recheck. The server keeps real time, as the socket's timer does.
 */
let api: TestServer;
let admin: DataSource;
// The recheck alone would see the expiry up to 15 s late (half the key cache's TTL).
beforeAll(async () => {
  api = await startServer({ clock: realClock(), env: { KEY_CACHE_TTL_SECONDS: '30' } });
  admin = await openStore(api.store);
});
afterAll(async () => {
  await admin?.destroy();
  await api?.close();
});

const SUBSCRIPTION = 'subscription { petChanged { id } }';

it('closes the socket of a key that expires while it is open at the expiry (4403), refuses it again after, and keeps a key without expiry open', async () => {
  // Whole seconds, as the keys table keeps them: at least 2 s after the socket opens.
  const expiresAt = Math.ceil((Date.now() + 2_500) / 1_000) * 1_000;
  const { key } = await createKey(apiKeyStore(admin), { plan: 'free', expiresAt: new Date(expiresAt) });
  const { key: lasting } = await createKey(apiKeyStore(admin), { plan: 'free' });
  const expiring = wsClient(api.url, { authorization: `Bearer ${key}` });
  const staying = wsClient(api.url, { authorization: `Bearer ${lasting}` });
  const ending = expiring.subscribe(SUBSCRIPTION);
  const listening = staying.subscribe(SUBSCRIPTION);
  expect(await expiring.run('{ rateLimit { plan } }')).toEqual({ data: { rateLimit: { plan: 'free' } } });
  expect(await staying.run('{ rateLimit { plan } }')).toEqual({ data: { rateLimit: { plan: 'free' } } });
  expect(Date.now()).toBeLessThan(expiresAt - 1_000);

  const closed = await expiring.closes;
  const closedAt = Date.now();
  expect(closed).toEqual({ code: 4403, reason: 'The credentials expired: reconnect with fresh ones' });
  // A timer may fire a millisecond early; within half a second after.
  expect(closedAt).toBeGreaterThanOrEqual(expiresAt - 5);
  expect(closedAt).toBeLessThanOrEqual(expiresAt + 500);
  expect(await ending.ends).toEqual({ thrown: expect.objectContaining({ code: 4403 }) });

  // Reconnecting with the same key is refused at connection_init, as any expired key is.
  const again = wsClient(api.url, { authorization: `Bearer ${key}` });
  expect(await again.closes).toEqual({ code: 4403, reason: expect.stringMatching(/^The API key expired at \d{4}-/) });
  await again.dispose();

  // The other socket, opened with it, stays past the expiry: its subscription still hears and it answers.
  await sleep(500);
  await api.post('/v1/pets', { name: 'Stayer', categoryId: 1 });
  expect(await listening.until(1)).toHaveLength(1);
  expect(await staying.run('{ rateLimit { plan } }')).toEqual({ data: { rateLimit: { plan: 'free' } } });
  const stillOpen = await Promise.race([staying.closes.then(() => false), sleep(50).then(() => true)]);
  expect(stillOpen).toBe(true);
  listening.stop();
  await Promise.all([expiring.dispose(), staying.dispose()]);
});
