/**
 * `tsx test/bench/redis-round-trips.ts`: how many times the server talks to Redis per request, counted
 * on the wire by a TCP hop between them (one write from the server = one round trip's request).
 * Needs TEST_REDIS_URL (or REDIS_URL) and builds nothing: it runs the app in process.
 */
import { createServer, connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKey } from '../../src/auth/key-admin.js';
import { loadConfig } from '../../src/config.js';
import { apiKeyStore } from '../../src/db/api-keys.js';
import { createDataSource } from '../../src/db/data-source.js';
import { serve } from '../../src/server.js';

const target = new URL(process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
let writes = 0;
const hop = createServer((client) => {
  const upstream = connect(Number(target.port || 6379), target.hostname);
  client.on('data', (chunk) => { writes += 1; upstream.write(chunk); });
  upstream.pipe(client);
});
await new Promise<void>((resolve) => hop.listen(0, '127.0.0.1', resolve));

const dir = mkdtempSync(join(tmpdir(), 'round-trips-'));
const config = loadConfig({ DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'silent', REDIS_PREFIX: `rt-${Date.now()}`,
  REDIS_URL: `redis://127.0.0.1:${(hop.address() as AddressInfo).port}` });
const server = await serve(config);
const admin = await createDataSource(config.database).initialize();
const { key } = await createKey(apiKeyStore(admin), { plan: 'enterprise', perMinute: 5, perDay: 1000 });
const auth = { authorization: `Bearer ${key}` };

async function count(label: string, n: number, request: () => Promise<Response>) {
  await new Promise((resolve) => setTimeout(resolve, 50));
  const before = writes;
  const statuses = new Set<number>();
  for (let i = 0; i < n; i += 1) statuses.add((await request()).status);
  await new Promise((resolve) => setTimeout(resolve, 50));
  console.log(`${label}: ${((writes - before) / n).toFixed(2)} Redis writes per request (statuses ${[...statuses].join(',')})`);
}

await count('with a key, allowed', 5, () => fetch(`${server.url}/v1/pets`, { headers: auth }));
await count('with a key, refused (429)', 5, () => fetch(`${server.url}/v1/pets`, { headers: auth }));
await count('without a key (401)', 5, () => fetch(`${server.url}/v1/pets`));
await server.close();
await admin.destroy();
hop.close();
process.exit(0);
