/**
 * What read-your-writes costs a read: GET /v1/pets/1 by a key that wrote within READ_YOUR_WRITES_SECONDS
 * (its reads wait on the replica for its write: MASTER_GTID_WAIT, one more round trip) against the same
 * GET by a key that did not (read on the replica at once). Sequential requests, one client, on the lab of
 * `npx tsx test/bench/lab.ts` (BENCH_DATABASE_URL, BENCH_REPLICA_URLS, BENCH_REDIS_CLUSTER_NODES), after
 * `npm run build`. READS (1000) per key and round, 3 rounds.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import { builtEntry } from './instances.js';

const READS = Number(process.env.READS ?? 1_000);
const base = process.env.BENCH_DATABASE_URL!;
const replica = process.env.BENCH_REPLICA_URLS!;
const nodes = process.env.BENCH_REDIS_CLUSTER_NODES!;
if (!base || !replica || !nodes) throw new Error('Start the lab (npx tsx test/bench/lab.ts) and set the settings it prints');

const name = `animal_store_ryw_${randomBytes(3).toString('hex')}`;
const admin = await createConnection({ uri: base });
await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
const env = {
  ...process.env, DATABASE_URL: new URL(`/${name}`, base).toString(), DATABASE_REPLICA_URLS: new URL(`/${name}`, replica).toString(),
  REDIS_CLUSTER_NODES: nodes, REDIS_PREFIX: `ryw-${randomBytes(3).toString('hex')}`, READ_YOUR_WRITES_SECONDS: '3600', REPLICA_MAX_LAG_SECONDS: '60',
  PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', LOG_FORMAT: 'json',
};
const child = spawn(process.execPath, [builtEntry()], { env, stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const url = await new Promise<string>((resolve) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => { out += chunk; const found = /listening on (http:\/\/[\d.:]+)/.exec(out); if (found) { child.stdout!.removeAllListeners('data').resume(); resolve(found[1]!); } });
  });
  const key = () => `Bearer ${execFileSync(process.execPath, ['dist/src/cli/keys.js', 'create', '--plan', 'enterprise', '--per-minute', '1000000', '--per-day', '1000000'],
    { env, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim().split('\n').pop()!}`;
  const [writer, reader] = [key(), key()];
  const created = await fetch(`${url}/v1/pets`, { method: 'POST', headers: { authorization: writer, 'content-type': 'application/json' }, body: '{"name":"Mine","categoryId":1}' });
  const { id } = await created.json() as { id: number };
  const time = async (authorization: string) => {
    const times: number[] = [];
    for (let i = 0; i < READS; i++) {
      const started = process.hrtime.bigint();
      const res = await fetch(`${url}/v1/pets/${id}`, { headers: { authorization } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET answered ${res.status}`);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    times.sort((a, b) => a - b);
    return { p50: times[Math.floor(READS / 2)]!.toFixed(2), p99: times[Math.floor(READS * 0.99)]!.toFixed(2) };
  };
  const rows = [];
  for (let round = 0; round < 3; round++) {
    rows.push({ round, key: 'no recent write (replica)', ...await time(reader) });
    rows.push({ round, key: 'wrote (waits for its write)', ...await time(writer) });
  }
  console.table(rows);
  const metrics = await (await fetch(`${url}/metrics`)).text();
  console.log(metrics.split('\n').filter((line) => line.startsWith('animal_store_db_reads_total')).join('\n'));
} finally {
  child.kill('SIGTERM');
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.end();
}
