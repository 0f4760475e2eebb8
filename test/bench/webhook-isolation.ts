/**
 * Whether one key's silent webhook endpoints delay another key's deliveries: two instances of the build
 * (dist/, `npm run build` first; BENCH_BUILD points at another build's dist/ to compare) on one MySQL
 * database with Redis, as the event-latency bench runs them. A healthy key's endpoint on a loopback
 * receiver (answers 204 at once); a POST on A, one every 50 ms, EVENTS (100) of them, and the time from
 * its 201 to its webhook, three times:
 *   1. alone;
 *   2. with SILENT (20) endpoints of another key on a receiver that accepts connections and never answers
 *      (each event goes to them too: every endpoint hears every event of its types);
 *   3. the same, while their owner asks for test events on them without pause (four at a time).
 * WEBHOOK_TIMEOUT_SECONDS is left at its default (10). BENCH_DATABASE_URL / BENCH_REDIS_URL, else the TEST_ ones.
 * `npx tsx test/bench/webhook-isolation.ts`
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { builtEntry, builtInstances } from './instances.js';

const EVENTS = Number(process.env.EVENTS ?? 100);
const SILENT = Number(process.env.SILENT ?? 20);
const build = process.env.BENCH_BUILD ?? 'dist';
const base = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const redis = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
if (!base || !redis) throw new Error('Set BENCH_DATABASE_URL and BENCH_REDIS_URL (or the TEST_ ones)');

const { children, start } = builtInstances(builtEntry(build));
const newKey = (env: Record<string, string>) => execFileSync(process.execPath,
  [join(build, 'src/cli/keys.js'), 'create', '--plan', 'enterprise', '--per-minute', '1000000', '--per-day', '1000000'],
  { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim().split('\n').pop()!;

// The silent receiver: every connection accepted and held, nothing answered.
const held = new Set<Socket>();
const silent = createNetServer((socket) => {
  held.add(socket);
  // Read (and dropped), so that a sender giving up is seen at once; never answered.
  socket.resume().on('error', () => undefined).once('close', () => held.delete(socket));
});
await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));

const heard = new Map<string, () => void>();
const receiver = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => { body += chunk; });
  request.on('end', () => {
    response.writeHead(204).end();
    heard.get(JSON.parse(body).data.pet?.name)?.();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));

const name = `animal_store_isolation_${randomBytes(3).toString('hex')}`;
const admin = await createConnection({ uri: new URL('/', base).toString() });
await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
const env = {
  DATABASE_URL: new URL(`/${name}`, base).toString(), REDIS_URL: redis, REDIS_PREFIX: `isolation-${randomBytes(3).toString('hex')}`,
  WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOKS_PER_KEY: String(Math.max(10, SILENT)),
};
let spamming = false;
const answers = new Map<number, number>();
try {
  const a = await start(env);
  const b = await start(env);
  const json = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
  const healthy = json(newKey(env));
  const quiet = json(newKey(env));
  await fetch(`${b}/v1/webhooks`, { method: 'POST', headers: healthy, body: JSON.stringify({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, types: ['pet.created'] }) });

  let round = 0;
  const measure = async (label: string) => {
    const times: number[] = [];
    let notWithinAMinute = 0;
    for (let i = 0; i < EVENTS; i++) {
      const pet = `R${round}-${i}`;
      // One not delivered within a minute counts as a minute (and as lost): the run goes on.
      let lost = false;
      const arrived = new Promise<void>((resolve) => {
        heard.set(pet, resolve);
        setTimeout(() => { lost = true; resolve(); }, 60_000).unref();
      });
      const res = await fetch(`${a}/v1/pets`, { method: 'POST', headers: healthy, body: JSON.stringify({ name: pet, categoryId: 1 }) });
      const committed = performance.now();
      await res.arrayBuffer();
      await arrived;
      times.push(performance.now() - committed);
      if (lost) notWithinAMinute += 1;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    round += 1;
    times.sort((x, y) => x - y);
    const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(1);
    const row = {
      run: label, events: EVENTS, 'p50 ms': at(0.5), 'p90 ms': at(0.9), 'p99 ms': at(0.99), 'max ms': times.at(-1)!.toFixed(1),
      'not within 1 min': notWithinAMinute, 'silent held': held.size,
    };
    console.error(JSON.stringify(row));
    return row;
  };

  const rows = [await measure('alone')];
  const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const ids: number[] = [];
  for (let i = 0; i < SILENT; i++) {
    const made = await fetch(`${b}/v1/webhooks`, { method: 'POST', headers: quiet, body: JSON.stringify({ url: `${silentUrl}/${i}` }) });
    ids.push(((await made.json()) as { id: number }).id);
  }
  rows.push(await measure(`with ${SILENT} silent endpoints`));

  spamming = true;
  // Four owners' scripts at once, each asking for a test event on the next silent endpoint as soon as
  // the last was answered (202, or 409 once an endpoint has its 5 waiting).
  const spam = Promise.all([0, 1, 2, 3].map(async (lane) => {
    for (let n = lane; spamming; n += 4) {
      const res = await fetch(`${n % 2 ? a : b}/v1/webhooks/${ids[n % ids.length]}/test`, { method: 'POST', headers: quiet });
      answers.set(res.status, (answers.get(res.status) ?? 0) + 1);
      await res.arrayBuffer();
    }
  }));
  rows.push(await measure(`with ${SILENT} silent endpoints, test events on them`));
  spamming = false;
  await spam;
  console.table(rows);
  console.log('test events asked for during run 3, by answer:', Object.fromEntries(answers));
} finally {
  spamming = false;
  for (const child of children.splice(0)) child.kill('SIGTERM');
  for (const socket of held) socket.destroy();
  silent.close();
  receiver.close();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.end();
}
