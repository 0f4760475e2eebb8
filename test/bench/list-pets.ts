/**
 * `npm run bench`: requests per second of GET /v1/pets?limit=20 on MySQL, with keys and Redis limits
 * on, beside a plain node:http handler returning the same JSON, the same query on bare mysql2, and the
 * same query over /graphql. BENCH_BASELINE=<path to another build's dist/src/main.js> adds that build
 * (e.g. an older commit) to the same run. Each server runs in a process of its own; autocannon runs here.
 * Needs BENCH_DATABASE_URL or TEST_DATABASE_URL (MySQL) and BENCH_REDIS_URL or TEST_REDIS_URL.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { createConnection } from 'mysql2/promise';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 32;
const base = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const redis = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
if (!base || !redis) throw new Error('Set BENCH_DATABASE_URL and BENCH_REDIS_URL (or TEST_DATABASE_URL and TEST_REDIS_URL)');

const children: ChildProcess[] = [];
const databases: string[] = [];
const admin = await createConnection({ uri: new URL('/', base).toString() });

async function freshDatabase(): Promise<string> {
  const name = `animal_store_bench_${randomBytes(3).toString('hex')}`;
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  databases.push(name);
  return new URL(`/${name}`, base).toString();
}

function start(args: string[], env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, args, { env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const read = (chunk: Buffer) => {
      out += chunk;
      const match = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (!match) return;
      // From here on the request log is written as in production, and thrown away.
      child.stdout!.off('data', read).resume();
      resolve(match[1]!);
    };
    child.stdout!.on('data', read);
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
}

/** A build of the service on a database of its own, with 30 pets; `withKey` for builds that need one. */
async function service(main: string, withKey: boolean) {
  const env = { DATABASE_URL: await freshDatabase(), REDIS_URL: redis!, REDIS_PREFIX: `bench-${randomBytes(3).toString('hex')}`, LOG_LEVEL: 'info' };
  const url = await start([main], env);
  const headers: Record<string, string> = {};
  if (withKey) {
    const key = execFileSync(process.execPath, ['dist/src/cli/keys.js', 'create', '--plan', 'enterprise', '--per-minute', '100000000', '--per-day', '1000000000'],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    headers.authorization = `Bearer ${key}`;
  }
  for (let i = 0; i < 30; i += 1) {
    await fetch(`${url}/v1/pets`, {
      method: 'POST', headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Pet ${i}`, categoryId: 1 + (i % 5), status: 'available' }),
    });
  }
  return { url, headers, env };
}

async function measure(title: string, options: autocannon.Options) {
  const result = await autocannon({ duration: DURATION, connections: CONNECTIONS, ...options });
  return { title, 'req/s': Math.round(result.requests.average), 'p50 ms': result.latency.p50, 'p99 ms': result.latency.p99, 'non-2xx': result.non2xx + result.errors };
}

try {
  const current = await service('dist/src/main.js', true);
  const baseline = process.env.BENCH_BASELINE ? await service(process.env.BENCH_BASELINE, false) : undefined;
  const body = await (await fetch(`${current.url}/v1/pets?limit=20`, { headers: current.headers })).text();
  const plain = await start(['-e', `
    const body = ${JSON.stringify(body)};
    require('node:http').createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(body); })
      .listen(0, '127.0.0.1', function () { console.log('listening on http://127.0.0.1:' + this.address().port); });
  `], {});
  // The floor under any framework: the same query on a mysql2 pool, serialized by hand.
  const direct = await start(['-e', `
    const pool = require('mysql2/promise').createPool({ uri: ${JSON.stringify(current.env.DATABASE_URL)}, connectionLimit: 10 });
    require('node:http').createServer(async (req, res) => {
      const [rows] = await pool.execute('SELECT id, name, category_id AS categoryId, status FROM pets ORDER BY id LIMIT 20');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(rows));
    }).listen(0, '127.0.0.1', function () { console.log('listening on http://127.0.0.1:' + this.address().port); });
  `], {});

  const rows = [
    await measure('plain node:http, same JSON', { url: `${plain}/v1/pets?limit=20` }),
    await measure('plain node:http + mysql2, same query', { url: `${direct}/v1/pets?limit=20` }),
    ...(baseline ? [await measure(`GET /v1/pets?limit=20, ${process.env.BENCH_BASELINE_LABEL ?? 'baseline build'}`, { url: `${baseline.url}/v1/pets?limit=20` })] : []),
    await measure('GET /v1/pets?limit=20, key + Redis limits', { url: `${current.url}/v1/pets?limit=20`, headers: current.headers }),
    await measure('POST /graphql { pets(limit: 20) }, key + Redis limits', {
      url: `${current.url}/graphql`, method: 'POST', headers: { ...current.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ pets(limit: 20) { id name categoryId status } }' }),
    }),
  ];
  console.log(`\n${DURATION} s, ${CONNECTIONS} connections, Node ${process.version}`);
  console.table(rows);
} finally {
  for (const child of children) child.kill('SIGTERM');
  for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await admin.end();
}
