/**
 * `npm run bench:pages`: the latency of a page at the start, the middle and the end of a large table,
 * over HTTP, on MySQL: keyset pages should cost the same wherever they are.
 *
 *   BENCH_PETS (1000000) seeded with SQL · BENCH_REQUESTS (200) per page, one at a time
 *   BENCH_DATABASE_URL, else TEST_DATABASE_URL · BENCH_REDIS_URL, else TEST_REDIS_URL (optional)
 *
 * Prints p50 and p99 per page, and the plan MariaDB/MySQL chooses for each query.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { createCursors } from '../../src/domain/cursor.js';
import { builtEntry } from './instances.js';

const PETS = Number(process.env.BENCH_PETS ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const base = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (!base) throw new Error('Set BENCH_DATABASE_URL (or TEST_DATABASE_URL)');
const redis = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;

const database = `bench_pages_${randomBytes(3).toString('hex')}`;
const server = new URL(base);
server.pathname = '/';
const admin = await createConnection({ uri: server.toString(), multipleStatements: true });
await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
const url = new URL(base);
url.pathname = `/${database}`;
const root = resolve(import.meta.dirname, '../..');
const env = { ...process.env, DATABASE_URL: url.toString(), ...(redis ? { REDIS_URL: redis, REDIS_PREFIX: database } : {}), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
const run = (args: string[]) => new Promise<string>((done, fail) => {
  const child = spawn(process.execPath, args, { cwd: root, env });
  let out = '';
  child.stdout.on('data', (chunk) => { out += chunk; });
  child.on('exit', (code) => (code === 0 ? done(out) : fail(new Error(`${args.join(' ')} exited ${code}`))));
});

try {
  await run(['dist/src/cli/migrate.js']);
  const key = (await run(['dist/src/cli/keys.js', 'create', '--plan', 'enterprise', '--per-minute', '100000000', '--per-day', '100000000'])).trim().split('\n').at(-1)!;
  await admin.query(`USE \`${database}\``);
  // Digits cross-joined: portable to MySQL 8 and MariaDB, a million rows in seconds.
  const digits = '(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)';
  const n = 'a.d + 10*b.d + 100*c.d + 1000*e.d + 10000*f.d + 100000*g.d';
  await admin.query(`INSERT INTO pets (name, category_id, status) SELECT CONCAT('Pet ', ${n}), 1 + (${n}) % 50, ELT(1 + (${n}) % 3, 'available', 'pending', 'sold')
    FROM ${digits} a, ${digits} b, ${digits} c, ${digits} e, ${digits} f, ${digits} g WHERE ${n} < ${PETS}`);
  await admin.query('ANALYZE TABLE pets');
  const [[secret]] = await admin.query('SELECT value FROM service_secrets WHERE name = \'cursor\'') as unknown as [[{ value: string }]];
  const cursors = createCursors(secret.value);

  const child = spawn(process.execPath, [builtEntry()], { cwd: root, env: { ...env, LOG_FORMAT: 'json', LOG_LEVEL: 'info' } });
  const origin = await new Promise<string>((done) => {
    child.stdout.on('data', (chunk: Buffer) => {
      const found = /"url":"(http[^"]+)"/.exec(chunk.toString());
      if (found) done(found[1]!);
    });
  });
  const headers = { authorization: `Bearer ${key}` };
  const measure = async (path: string) => {
    const times: number[] = [];
    for (let i = 0; i < REQUESTS + 20; i += 1) {
      const started = performance.now();
      const res = await fetch(`${origin}${path}`, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      if (i >= 20) times.push(performance.now() - started);
    }
    times.sort((x, y) => x - y);
    return { p50: times[Math.floor(times.length / 2)]!.toFixed(2), p99: times[Math.floor(times.length * 0.99)]!.toFixed(2) };
  };
  const at = { first: undefined, middle: Math.floor(PETS / 2), last: PETS - 20 } as const;
  console.log(`pages of 20 at ${PETS.toLocaleString('en')} pets (ms, ${REQUESTS} requests each, one at a time)`);
  for (const status of [undefined, 'available'] as const) {
    for (const [where, after] of Object.entries(at)) {
      const query = `limit=20${status ? `&status=${status}` : ''}${after ? `&cursor=${cursors.make({ list: 'pets', status }, after)}` : ''}`;
      console.log(`${(status ?? 'all').padEnd(10)} ${where.padEnd(7)}`, await measure(`/v1/pets?${query}`));
    }
  }
  for (const sql of [
    'EXPLAIN SELECT id FROM pets WHERE id > 500000 ORDER BY id LIMIT 21',
    'EXPLAIN SELECT id FROM pets FORCE INDEX (IDX_pets_status_id) WHERE status = \'available\' AND id > 500000 ORDER BY id LIMIT 21',
  ]) {
    const [plan] = await admin.query(sql) as unknown as [Record<string, unknown>[]];
    console.log(sql.replace('EXPLAIN ', ''), '→', plan.map((p) => `${p.type} ${p.key} rows=${p.rows} ${p.Extra ?? ''}`).join('; '));
  }
  child.kill();
} finally {
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await admin.end();
}
