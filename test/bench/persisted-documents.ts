/**
 * `npm run --silent build && npx tsx test/bench/persisted-documents.ts`: the GraphQL pets list sent as
 * text against the same document sent by `documentId` from a trusted-documents manifest (parsed,
 * validated and held to the limits once, at startup), on one built instance (embedded SQLite, or
 * BENCH_DATABASE_URL / BENCH_REDIS_URL), 200 pets, a key with its limits on. Each shape runs
 * BENCH_ROUNDS times (2), alternating, BENCH_SECONDS each (10), BENCH_CONNECTIONS (32). First, in this
 * process, what the operation step's check costs each way (the text's parse is cached either way).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { loadConfig } from '../../src/config.js';
import { createOperationChecker, prepareDocument } from '../../src/graphql/operation-checker.js';
import { schema } from '../../src/schema/index.js';
import { builtEntry, builtInstances } from './instances.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const PETS = 'query Pets { pets(limit: 20) { id name categoryId status } }';
const id = createHash('sha256').update(PETS).digest('hex');

{
  const { operationLimits } = loadConfig({});
  const check = createOperationChecker(operationLimits, schema);
  const prepared = prepareDocument(PETS, operationLimits, schema);
  const time = (run: () => unknown) => {
    for (let i = 0; i < 20_000; i++) run();
    const began = process.hrtime.bigint();
    for (let i = 0; i < 200_000; i++) run();
    return Number(process.hrtime.bigint() - began) / 200_000 / 1_000;
  };
  const text = time(() => check({ query: PETS }));
  const byId = time(() => check({ query: PETS }, prepared));
  console.log(`operation check, in process: text ${text.toFixed(2)} µs, prepared (documentId) ${byId.toFixed(2)} µs per request`);
}

const dir = mkdtempSync(join(tmpdir(), 'bench-persisted-'));
const manifest = join(dir, 'persisted-documents.json');
writeFileSync(manifest, JSON.stringify({ [id]: PETS }));
const database: Record<string, string> = process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : { DATA_DIR: dir };
const env: Record<string, string> = {
  ...database, ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}),
  PERSISTED_DOCUMENTS_FILE: manifest, NODE_ENV: 'production',
};

const key = execFileSync(process.execPath, ['dist/src/cli/keys.js', 'create', '--plan', 'enterprise', '--per-minute', '2000000000', '--per-day', '2000000000'], {
  env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'],
}).trim().split('\n').at(-1)!;
const { children, start } = builtInstances(builtEntry());
const url = await start(env);
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/graphql-response+json' };

for (let i = 0; i < 200; i++) {
  const created = await fetch(`${url}/v1/pets`, { method: 'POST', headers, body: JSON.stringify({ name: `Pet ${i}`, categoryId: 1 + (i % 5) }) });
  if (created.status !== 201) throw new Error(`seeding: ${created.status} ${await created.text()}`);
}

const shapes = { text: JSON.stringify({ query: PETS }), documentId: JSON.stringify({ documentId: `sha256:${id}` }) };
for (const [label, body] of Object.entries(shapes)) {
  const answer = await fetch(`${url}/graphql`, { method: 'POST', headers, body });
  const json = await answer.json() as { data?: { pets: unknown[] } };
  if (answer.status !== 200 || json.data?.pets.length !== 20) throw new Error(`${label}: ${answer.status} ${JSON.stringify(json).slice(0, 200)}`);
}

const results: Record<string, { rps: number[]; p50: number[]; p99: number[] }> = {};
try {
  for (let round = 0; round < rounds; round++) {
    for (const [label, body] of Object.entries(shapes)) {
      const run = await autocannon({ url: `${url}/graphql`, method: 'POST', headers, body, connections, duration: seconds });
      if (run.non2xx > 0 || run.errors > 0) throw new Error(`${label}: ${run.non2xx} non-2xx, ${run.errors} errors`);
      const into = results[label] ??= { rps: [], p50: [], p99: [] };
      into.rps.push(run.requests.average);
      into.p50.push(run.latency.p50);
      into.p99.push(run.latency.p99);
    }
  }
} finally {
  for (const child of children) child.kill('SIGTERM');
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
console.log(`GraphQL pets(limit: 20), ${connections} connections, ${rounds} × ${seconds} s each, ${process.env.BENCH_DATABASE_URL ? 'MySQL' : 'SQLite'}`);
for (const [label, { rps, p50, p99 }] of Object.entries(results)) {
  console.log(`${label.padEnd(12)} ${mean(rps).toFixed(0).padStart(6)} req/s  p50 ${mean(p50).toFixed(1)} ms  p99 ${mean(p99).toFixed(1)} ms  (rounds: ${rps.map((r) => r.toFixed(0)).join(', ')} req/s)`);
}
