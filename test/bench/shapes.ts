/**
 * `npm run bench`: requests per second, p50 and p99 of the service's REST shapes and the GraphQL list,
 * on MySQL and Redis, with a key and its limits on, logs and metrics on, as in production.
 *
 *   BENCH_BASELINE=<another build's entry: dist/bundle/server.mjs, dist/src/main.js before the bundle>
 *     [BENCH_BASELINE_LABEL=...]  adds that build to the same run (e.g. a worktree of an older commit,
 *     built): the builds take turns on each shape.
 *   BENCH_SECONDS (10) per shape and build · BENCH_CONNECTIONS (32) · BENCH_PETS (10000) seeded with SQL
 *   BENCH_SHAPES ("list20 list100s get1 post graphql") · BENCH_DATABASE_URL / BENCH_REDIS_URL, else the
 *     TEST_ ones · BENCH_REPLICA_URLS: servers replicating BENCH_DATABASE_URL's (`npx tsx test/bench/lab.ts`
 *     starts a MariaDB primary and replica, and a Redis Cluster): each build then reads on them, its
 *     database's replica · BENCH_REDIS_CLUSTER_NODES: a Redis Cluster instead of BENCH_REDIS_URL.
 *
 * Each build runs in a process of its own, on a database of its own; autocannon runs in this one. On a
 * machine with spare cores, pin the servers (taskset) to read stable figures; compare builds within one
 * run, never across days.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { createConnection } from 'mysql2/promise';
import { builtCli, builtEntry } from './instances.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PETS = Number(process.env.BENCH_PETS ?? 10_000);
const WARMUP_SECONDS = 2;
const base = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const replicaBases = (process.env.BENCH_REPLICA_URLS ?? '').split(',').filter(Boolean);
const cluster = process.env.BENCH_REDIS_CLUSTER_NODES;
const redis = cluster ? undefined : process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
if (!base || !(redis || cluster)) throw new Error('Set BENCH_DATABASE_URL and BENCH_REDIS_URL (or TEST_DATABASE_URL and TEST_REDIS_URL)');

interface Shape {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: string;
}

const SHAPES: Record<string, Shape> = {
  list20: { method: 'GET', path: '/v1/pets?limit=20' },
  list100s: { method: 'GET', path: '/v1/pets?limit=100&status=available' },
  get1: { method: 'GET', path: '/v1/pets/1' },
  post: { method: 'POST', path: '/v1/pets', body: JSON.stringify({ name: 'Bench', categoryId: 1 }) },
  graphql: { method: 'POST', path: '/graphql', body: JSON.stringify({ query: '{ pets(limit: 20) { id name categoryId status } }' }) },
};
const shapes = (process.env.BENCH_SHAPES ?? Object.keys(SHAPES).join(' ')).split(/\s+/).filter(Boolean);
for (const name of shapes) if (!SHAPES[name]) throw new Error(`Unknown shape ${name}; known: ${Object.keys(SHAPES).join(' ')}`);

const children: ChildProcess[] = [];
const databases: string[] = [];
const admin = await createConnection({ uri: new URL('/', base).toString() });

async function freshDatabase(): Promise<string> {
  const name = `animal_store_bench_${randomBytes(3).toString('hex')}`;
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  databases.push(name);
  return new URL(`/${name}`, base).toString();
}

/** Starts a build and resolves with its URL once it says where it listens. */
function start(main: string, env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_FORMAT: 'json', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolveUrl, reject) => {
    let out = '';
    const read = (chunk: Buffer) => {
      out += chunk;
      const match = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (!match) return;
      // From here on the request log is written as in production, and thrown away.
      child.stdout!.off('data', read).resume();
      resolveUrl(match[1]!);
    };
    child.stdout!.on('data', read);
    child.once('exit', (code) => reject(new Error(`${main} exited (${code}): ${out}`)));
  });
}

/** The same pets for every build: inserted with SQL (the API would count them against the key). */
async function seed(databaseUrl: string): Promise<void> {
  const db = await createConnection({ uri: databaseUrl });
  const statuses = ['available', 'pending', 'sold'];
  for (let first = 0; first < PETS; first += 1_000) {
    const rows = Array.from({ length: Math.min(1_000, PETS - first) }, (_, i) => [`Pet ${first + i + 1}`, 1 + ((first + i) % 5), statuses[(first + i) % 3]]);
    await db.query('INSERT INTO pets (name, category_id, status) VALUES ?', [rows]);
  }
  await db.end();
}

interface Target {
  readonly label: string;
  readonly url: string;
  readonly headers: Record<string, string>;
}

/** A build on a database of its own (migrated by its own start), seeded, with a key whose limits are never reached. */
async function service(label: string, main: string): Promise<Target> {
  const database = await freshDatabase();
  // The replicas copy the primary's CREATE DATABASE: each build reads its own database there too.
  const replicas = replicaBases.map((replica) => new URL(new URL(database).pathname, replica).toString()).join(',');
  const env = {
    DATABASE_URL: database, ...(cluster ? { REDIS_CLUSTER_NODES: cluster } : { REDIS_URL: redis! }), REDIS_PREFIX: `bench-${randomBytes(3).toString('hex')}`,
    ...(replicas ? { DATABASE_REPLICA_URLS: replicas } : {}),
  };
  const url = await start(main, env);
  await seed(env.DATABASE_URL);
  const cli = builtCli(main, 'keys.js');
  const key = execFileSync(process.execPath, [cli, 'create', '--plan', 'enterprise', '--per-minute', '2000000000', '--per-day', '2000000000', '--name', 'bench'],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim().split('\n').pop()!;
  return { label, url, headers: { authorization: `Bearer ${key}` } };
}

async function load(target: Target, shape: Shape, seconds: number) {
  const result = await autocannon({
    url: `${target.url}${shape.path}`, method: shape.method, body: shape.body, duration: seconds, connections: CONNECTIONS,
    headers: { ...target.headers, ...(shape.body ? { 'content-type': 'application/json' } : {}) },
  });
  return {
    'req/s': Math.round(result.requests.average), 'p50 ms': result.latency.p50, 'p99 ms': result.latency.p99,
    'non-2xx': result.non2xx + result.errors + result.timeouts,
  };
}

try {
  const targets = [await service('this build', builtEntry())];
  if (process.env.BENCH_BASELINE) targets.push(await service(process.env.BENCH_BASELINE_LABEL ?? 'baseline', process.env.BENCH_BASELINE));
  const rows = [];
  for (const name of shapes) {
    const shape = SHAPES[name]!;
    for (const target of targets) {
      await load(target, shape, WARMUP_SECONDS);
      rows.push({ shape: name, build: target.label, ...await load(target, shape, SECONDS) });
    }
  }
  console.log(`\n${SECONDS} s per shape and build, ${CONNECTIONS} connections, ${PETS} pets, Node ${process.version}`);
  console.table(rows);
} finally {
  for (const child of children) child.kill('SIGTERM');
  for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await admin.end();
}
