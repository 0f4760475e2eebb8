/**
 * `npm run soak`: the service as launched in production (the Dockerfile's settings and node flags), on
 * MySQL and Redis, under a mixed load for a given time, printing each minute what an operator watches:
 * RSS (min, median, max, sampled each second), the event loop's delay (p99, from /metrics), the load's
 * requests, p99 and errors, and the events its subscribers received.
 *
 *   SOAK_MINUTES (5) · SOAK_CONNECTIONS (32) · SOAK_SUBSCRIBERS (50) open subscriptions reading every
 *   pet event · SOAK_PETS (10000) created through the API first · SOAK_DATABASE_URL / SOAK_REDIS_URL,
 *   else the TEST_ ones.
 *
 * The load cycles through the four REST shapes of the reference benchmark and the GraphQL list; its
 * creates feed the subscribers. Everything runs on loopback: the service, its database and its Redis
 * must be on 127.0.0.1 (or localhost). Bounded: it ends after SOAK_MINUTES and stops what it started.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { createConnection } from 'mysql2/promise';
import { productionLaunch } from '../support/launch.js';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 5);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 32);
const SUBSCRIBERS = Number(process.env.SOAK_SUBSCRIBERS ?? 50);
const PETS = Number(process.env.SOAK_PETS ?? 10_000);
const databaseBase = process.env.SOAK_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const redisUrl = process.env.SOAK_REDIS_URL ?? process.env.TEST_REDIS_URL;
if (!databaseBase || !redisUrl) throw new Error('Set SOAK_DATABASE_URL and SOAK_REDIS_URL (or TEST_DATABASE_URL and TEST_REDIS_URL)');
for (const [name, value] of [['database', databaseBase], ['Redis', redisUrl]] as const) {
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(new URL(value).hostname)) throw new Error(`The soak runs on loopback only: its ${name} is not`);
}
for (const [name, value] of Object.entries({ SOAK_MINUTES: MINUTES, SOAK_CONNECTIONS: CONNECTIONS, SOAK_SUBSCRIBERS: SUBSCRIBERS, SOAK_PETS: PETS })) {
  if (!Number.isInteger(value) || value < 0 || value > 100_000) throw new Error(`${name} must be a whole number from 0 to 100000`);
}

const root = resolve(import.meta.dirname, '../..');
const admin = await createConnection({ uri: new URL('/', databaseBase).toString() });
const database = `animal_store_soak_${randomBytes(3).toString('hex')}`;
await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
const env = {
  ...process.env,
  DATABASE_URL: new URL(`/${database}`, databaseBase).toString(), REDIS_URL: redisUrl, REDIS_PREFIX: `soak-${randomBytes(3).toString('hex')}`,
  PORT: '0', HOST: '127.0.0.1', LOG_FORMAT: 'json', LOG_LEVEL: 'info',
  SUBSCRIPTIONS_PER_KEY: String(Math.max(5, SUBSCRIBERS)),
};

let service: ChildProcess | undefined;
const subscriptions: AbortController[] = [];
async function cleanUp() {
  for (const subscription of subscriptions) subscription.abort();
  service?.kill('SIGTERM');
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``).catch(() => undefined);
  await admin.end();
}
process.once('SIGINT', () => { void cleanUp().then(() => process.exit(130)); });

// The key, made by the CLI as an operator would (which also migrates the new database).
const key = execFileSync(process.execPath, ['dist/src/cli/keys.js', 'create', '--plan', 'enterprise', '--per-minute', '2000000000', '--per-day', '2000000000', '--name', 'soak'], {
  cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'],
}).trim().split('\n').at(-1)!;
const authorization = `Bearer ${key}`;

// The production launch: the Dockerfile's settings and node flags.
const launch = productionLaunch();
const [command, ...args] = launch.cmd;
service = spawn(command === 'node' ? process.execPath : command!, args, { cwd: root, env: { ...env, ...launch.env }, stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise<string>((resolveUrl, reject) => {
  let out = '';
  const read = (chunk: Buffer) => {
    out += chunk;
    const match = /listening on (http:\/\/[\d.:]+)/.exec(out);
    if (!match) return;
    service!.stdout!.off('data', read).resume(); // the request log, written as in production, thrown away
    resolveUrl(match[1]!);
  };
  service!.stdout!.on('data', read);
  service!.once('exit', (code) => reject(new Error(`the service exited (${code}): ${out}`)));
});
const pid = service.pid!;
console.log(`soak: ${launch.settings.join(' ')} ${launch.cmd.join(' ')} (pid ${pid}) on ${url}`);
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

const post = (path: string, body: unknown) => fetch(url + path, {
  method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body),
});

// SOAK_PETS pets through the API, 16 at a time.
let created = 0;
await Promise.all(Array.from({ length: 16 }, async () => {
  while (created < PETS) {
    created += 1;
    const reply = await post('/v1/pets', { name: `Soak ${created}`, categoryId: 1 + (created % 10) });
    if (reply.status !== 201) throw new Error(`seeding: ${reply.status} ${await reply.text()}`);
  }
}));
console.log(`soak: ${PETS} pets created; RSS ${rssMb().toFixed(0)} MB`);

// Subscribers that read every event as it comes.
let events = 0;
let streamErrors = 0;
for (let i = 0; i < SUBSCRIBERS; i++) {
  const controller = new AbortController();
  subscriptions.push(controller);
  const reply = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { authorization, accept: 'text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'subscription { petChanged { kind pet { id name status } } }' }),
    signal: controller.signal,
  });
  if (reply.status !== 200) throw new Error(`subscription ${i}: ${reply.status} ${await reply.text()}`);
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of reply.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      const blocks = buffer.split('\n\n');
      buffer = blocks.pop()!;
      for (const block of blocks) {
        if (!block.startsWith('event: next')) continue;
        events += 1;
        if (block.includes('"errors"')) streamErrors += 1;
      }
    }
  })().catch(() => undefined);
}

const SHAPES = [
  { method: 'GET', path: '/v1/pets?limit=20' },
  { method: 'GET', path: '/v1/pets?limit=100&status=available' },
  { method: 'GET', path: '/v1/pets/1' },
  { method: 'POST', path: '/v1/pets', body: JSON.stringify({ name: 'Soak', categoryId: 1 }), headers: { 'content-type': 'application/json' } },
  { method: 'POST', path: '/graphql', body: JSON.stringify({ query: '{ pets(limit: 20) { id name categoryId status } }' }), headers: { 'content-type': 'application/json' } },
] as const;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const eventLoopP99Ms = async () => {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(text)?.[1] ?? NaN) * 1000;
};
await eventLoopP99Ms(); // starts the first minute's window

console.log('minute  rss MB min/median/max  loop p99 ms  requests  req/s  p99 ms  errors  non-2xx  events  stream errors');
const medians: number[] = [];
let peak = 0;
for (let minute = 1; minute <= MINUTES; minute++) {
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssMb()), 1_000);
  const eventsBefore = events;
  const result = await autocannon({
    url, connections: CONNECTIONS, duration: 60, headers: { authorization }, requests: SHAPES as never,
  });
  clearInterval(sampler);
  const loop = await eventLoopP99Ms();
  const rss = [Math.min(...samples), median(samples), Math.max(...samples)];
  medians.push(rss[1]!);
  peak = Math.max(peak, rss[2]!);
  console.log([
    String(minute).padStart(6), rss.map((v) => v.toFixed(0)).join('/').padStart(22), loop.toFixed(1).padStart(11),
    String(result.requests.total).padStart(9), result.requests.average.toFixed(0).padStart(6), String(result.latency.p99).padStart(7),
    String(result.errors + result.timeouts).padStart(7), String(result.non2xx).padStart(8), String(events - eventsBefore).padStart(7),
    String(streamErrors).padStart(14),
  ].join('  '));
}

const tenth = Math.min(10, Math.floor(MINUTES / 2));
if (tenth > 0) {
  const first = median(medians.slice(0, tenth));
  const last = median(medians.slice(-tenth));
  console.log(`soak: peak RSS ${peak.toFixed(0)} MB; median RSS of the first ${tenth} min ${first.toFixed(0)} MB, of the last ${tenth} ${last.toFixed(0)} MB (${((last / first - 1) * 100).toFixed(1)}%)`);
}
await cleanUp();
