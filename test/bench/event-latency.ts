/**
 * From a change's commit to its event on a subscriber of another instance, and to its webhook on a
 * loopback receiver (below): two instances of the build
 * (dist/, `npm run build` first) on one MySQL database, with Redis (wake-ups) and without (each instance
 * polls the outbox every second). A POST on A, one every 50 ms, EVENTS (200) of them; the time from its
 * 201 (the commit) to the event on B's stream. BENCH_DATABASE_URL / BENCH_REDIS_URL, else the TEST_ ones.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createConnection } from 'mysql2/promise';
import { builtEntry, builtInstances } from './instances.js';
import { subscribe } from '../support/sse.js';

const EVENTS = Number(process.env.EVENTS ?? 200);
const base = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const redis = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
if (!base || !redis) throw new Error('Set BENCH_DATABASE_URL and BENCH_REDIS_URL (or the TEST_ ones)');

const { children, start } = builtInstances(builtEntry());

async function run(label: string, withRedis: boolean) {
  const name = `animal_store_events_${randomBytes(3).toString('hex')}`;
  const admin = await createConnection({ uri: new URL('/', base).toString() });
  await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
  const env = {
    DATABASE_URL: new URL(`/${name}`, base).toString(), REDIS_PREFIX: `events-${randomBytes(3).toString('hex')}`,
    ...(withRedis ? { REDIS_URL: redis! } : {}),
  };
  try {
    const a = await start(env);
    const b = await start(env);
    const key = execFileSync(process.execPath, ['dist/src/cli/keys.js', 'create', '--plan', 'enterprise', '--per-minute', '1000000', '--per-day', '1000000'],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim().split('\n').pop()!;
    const headers = { authorization: `Bearer ${key}` };
    const stream = await subscribe(b, 'subscription { petChanged { pet { name } } }', headers);
    const times: number[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const res = await fetch(`${a}/v1/pets`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ name: `E${i}`, categoryId: 1 }) });
      const committed = performance.now();
      await res.arrayBuffer();
      const event = await stream.next(5_000);
      if (event.data.petChanged.pet.name !== `E${i}`) throw new Error(`heard ${event.data.petChanged.pet.name}, expected E${i}`);
      times.push(performance.now() - committed);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    stream.close();
    times.sort((x, y) => x - y);
    const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(1);
    return { run: label, events: EVENTS, 'p50 ms': at(0.5), 'p90 ms': at(0.9), 'p99 ms': at(0.99), 'max ms': times[times.length - 1]!.toFixed(1) };
  } finally {
    for (const child of children.splice(0)) child.kill('SIGTERM');
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.end();
  }
}

/**
 * From a change's commit to its webhook on a healthy loopback receiver: the same two instances, an
 * endpoint made on B, each POST on A; the receiver answers 204 at once.
 */
async function webhooks(label: string, withRedis: boolean) {
  const name = `animal_store_hooks_${randomBytes(3).toString('hex')}`;
  const admin = await createConnection({ uri: new URL('/', base).toString() });
  await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
  const heard = new Map<string, () => void>();
  const receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => { body += chunk; });
    request.on('end', () => {
      response.writeHead(204).end();
      heard.get(JSON.parse(body).data.pet.name)?.();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const env = {
    DATABASE_URL: new URL(`/${name}`, base).toString(), REDIS_PREFIX: `hooks-${randomBytes(3).toString('hex')}`,
    WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...(withRedis ? { REDIS_URL: redis! } : {}),
  };
  try {
    const a = await start(env);
    const b = await start(env);
    const key = execFileSync(process.execPath, ['dist/src/cli/keys.js', 'create', '--plan', 'enterprise', '--per-minute', '1000000', '--per-day', '1000000'],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim().split('\n').pop()!;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const { port } = receiver.address() as AddressInfo;
    await fetch(`${b}/v1/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url: `http://127.0.0.1:${port}/`, types: ['pet.created'] }) });
    const times: number[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const arrived = new Promise<void>((resolve, reject) => {
        heard.set(`W${i}`, resolve);
        setTimeout(() => reject(new Error(`W${i} not delivered within 5 s`)), 5_000).unref();
      });
      const res = await fetch(`${a}/v1/pets`, { method: 'POST', headers, body: JSON.stringify({ name: `W${i}`, categoryId: 1 }) });
      const committed = performance.now();
      await res.arrayBuffer();
      await arrived;
      times.push(performance.now() - committed);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    times.sort((x, y) => x - y);
    const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(1);
    return { run: label, events: EVENTS, 'p50 ms': at(0.5), 'p90 ms': at(0.9), 'p99 ms': at(0.99), 'max ms': times[times.length - 1]!.toFixed(1) };
  } finally {
    for (const child of children.splice(0)) child.kill('SIGTERM');
    receiver.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.end();
  }
}

console.table([
  await run('event, with Redis (wake-ups)', true), await run('event, without Redis (polling)', false),
  await webhooks('webhook, with Redis', true), await webhooks('webhook, without Redis', false),
]);
