/**
 * `npm run bench`: requests per second of GET /v1/pets?limit=20 on MySQL, beside a plain node:http
 * handler returning the same JSON and the same query over /graphql. Each server runs in a process of
 * its own; autocannon runs here. Needs BENCH_DATABASE_URL or TEST_DATABASE_URL (a MySQL server).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { createConnection } from 'mysql2/promise';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 32;
const base = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (!base) throw new Error('Set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a MySQL URL, e.g. mysql://root@127.0.0.1:3306/animal_store_bench');

function start(args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
      const match = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (match) resolve({ child, url: match[1]! });
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
}

async function measure(title: string, options: autocannon.Options) {
  const result = await autocannon({ duration: DURATION, connections: CONNECTIONS, ...options });
  const non2xx = result.non2xx + result.errors;
  return { title, 'req/s': Math.round(result.requests.average), 'p50 ms': result.latency.p50, 'p99 ms': result.latency.p99, errors: non2xx };
}

const admin = await createConnection({ uri: new URL('/', base).toString() });
const database = `animal_store_bench_${randomBytes(3).toString('hex')}`;
await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
const children: ChildProcess[] = [];
try {
  const service = await start(['dist/src/main.js'], { DATABASE_URL: new URL(`/${database}`, base).toString(), LOG_LEVEL: 'info' });
  children.push(service.child);
  for (let i = 0; i < 30; i += 1) {
    await fetch(`${service.url}/v1/pets`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Pet ${i}`, categoryId: 1 + (i % 5), status: 'available' }),
    });
  }
  const body = await (await fetch(`${service.url}/v1/pets?limit=20`)).text();

  const plain = await start(['-e', `
    const body = ${JSON.stringify(body)};
    require('node:http').createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(body); })
      .listen(0, '127.0.0.1', function () { console.log('listening on http://127.0.0.1:' + this.address().port); });
  `], {});
  children.push(plain.child);

  // The floor under any framework: the same query on a mysql2 pool, serialized by hand.
  const direct = await start(['-e', `
    const pool = require('mysql2/promise').createPool({ uri: ${JSON.stringify(new URL(`/${database}`, base).toString())}, connectionLimit: 10 });
    require('node:http').createServer(async (req, res) => {
      const [rows] = await pool.execute('SELECT id, name, category_id AS categoryId, status FROM pets ORDER BY id LIMIT 20');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(rows));
    }).listen(0, '127.0.0.1', function () { console.log('listening on http://127.0.0.1:' + this.address().port); });
  `], {});
  children.push(direct.child);

  const rows = [
    await measure('plain node:http, same JSON', { url: `${plain.url}/v1/pets?limit=20` }),
    await measure('plain node:http + mysql2, same query', { url: `${direct.url}/v1/pets?limit=20` }),
    await measure('GET /v1/pets?limit=20 (SOFA → GraphQL → TypeORM → MySQL)', { url: `${service.url}/v1/pets?limit=20` }),
    await measure('POST /graphql { pets(limit: 20) } (yoga → TypeORM → MySQL)', {
      url: `${service.url}/graphql`, method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ pets(limit: 20) { id name categoryId status } }' }),
    }),
  ];
  console.log(`\n${DURATION} s, ${CONNECTIONS} connections, Node ${process.version}`);
  console.table(rows);
} finally {
  for (const child of children) child.kill('SIGTERM');
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await admin.end();
}
