/**
 * `npx tsx test/bench/event-history.ts`: what an old position in the event history costs, on MariaDB or
 * MySQL. Fills a database of its own (made and dropped here, on the server of BENCH_DATABASE_URL, else
 * TEST_DATABASE_URL) with BENCH_EVENTS (1,000,000) events in one INSERT ... SELECT, starts the build
 * (dist/, `npm run build` first; BENCH_BASELINE names another build's entry point) and measures, one call at
 * a time:
 *   - a one-event page of the feed from the oldest position, from the newest, and of a type (BENCH_CALLS, 200, each);
 *   - another key's GET /v1/pets for BENCH_SECONDS (10) alone, then while BENCH_STREAMS (20) streams resume from
 *     the oldest event over and over (each: subscribe with `after`, read its first event, close, wait 1 s),
 *     then the same from the newest (what a resume costs wherever it starts),
 *     with the time each resume took to its first event. What a resume costs, not what delivering a million
 *     events does: a client that went on reading would have the server send its backlog as fast as it reads.
 * Prints p50 and p99 (ms), and the plans the server chooses for the history's statements.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { historyStatement } from '../../src/db/outbox.js';
import { builtCli, builtEntry } from './instances.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PAUSE_MS = 1_000;
const base = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (!base) throw new Error('Set BENCH_DATABASE_URL (or TEST_DATABASE_URL)');
const root = resolve(import.meta.dirname, '../..');
const main = resolve(root, process.env.BENCH_BASELINE ?? builtEntry());
const cli = (name: string) => builtCli(main, name);

const database = `bench_events_${randomBytes(3).toString('hex')}`;
const server = new URL(base);
server.pathname = '/';
const admin = await createConnection({ uri: server.toString() });
await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
const url = new URL(base);
url.pathname = `/${database}`;
const env: NodeJS.ProcessEnv = {
  ...process.env, DATABASE_URL: url.toString(), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', SUBSCRIPTIONS_PER_KEY: String(STREAMS * 3),
};
delete env.REDIS_URL;
const run = (args: string[]) => new Promise<string>((done, fail) => {
  const child = spawn(process.execPath, args, { cwd: root, env });
  let out = '';
  child.stdout.on('data', (chunk) => { out += chunk; });
  child.on('exit', (code) => (code === 0 ? done(out) : fail(new Error(`${args.join(' ')} exited ${code}`))));
});
const newKey = async () => (await run([cli('keys.js'), 'create', '--plan', 'enterprise', '--per-minute', '100000000', '--per-day', '100000000'])).trim().split('\n').at(-1)!;

const percentiles = (times: number[]) => {
  const sorted = [...times].sort((x, y) => x - y);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!.toFixed(2);
  return { n: sorted.length, p50: at(0.5), p99: at(0.99) };
};

let child: ChildProcess | undefined;
try {
  await run([cli('migrate.js')]);
  const streamKey = await newKey();
  const petsKey = await newKey();
  await admin.query(`USE \`${database}\``);
  await admin.query('INSERT INTO pets (name, category_id, status) SELECT CONCAT(\'Pet \', seq), 1, \'available\' FROM seq_1_to_100');
  // A busy key's history: mostly updates of its pets, some orders, no deletions; every event inside the retention.
  const started = performance.now();
  const now = Date.now();
  await admin.query(`INSERT INTO events (type, occurred_at, payload)
    SELECT ELT(1 + seq % 10, 'pet.created', 'order.created', 'order.updated', 'pet.updated', 'pet.updated', 'pet.updated', 'pet.updated', 'pet.updated', 'pet.updated', 'pet.updated'),
      ${now} - ${EVENTS} + seq,
      IF(seq % 10 IN (1, 2),
        CONCAT('{"kind":"', IF(seq % 10 = 1, 'CREATED', 'UPDATED'), '","order":{"id":', 1 + seq % 100, ',"petId":', 1 + seq % 100, ',"status":"placed","complete":false,"placedAt":"2026-11-27T09:00:00.000Z"}}'),
        CONCAT('{"kind":"', IF(seq % 10 = 0, 'CREATED', 'UPDATED'), '","pet":{"id":', 1 + seq % 100, ',"name":"Pet ', seq, '","categoryId":1,"status":"available"}}'))
    FROM seq_1_to_${EVENTS}`);
  await admin.query('ANALYZE TABLE events');
  const [[bounds]] = await admin.query('SELECT MIN(id) AS oldest, MAX(id) AS newest FROM events') as unknown as [[{ oldest: number; newest: number }]];
  console.log(`${EVENTS.toLocaleString('en')} events in ${((performance.now() - started) / 1000).toFixed(1)} s; measuring ${main.replace(`${root}/`, '')}`);

  // BENCH_NODE_ARGS: for the service's node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), main], { cwd: root, env: { ...env, LOG_FORMAT: 'json', LOG_LEVEL: 'info' } });
  const origin = await new Promise<string>((done, fail) => {
    let out = '';
    child!.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
      const found = /listening on (http:\/\/[\d.:]+)/.exec(out) ?? /"url":"(http[^"]+)"/.exec(out);
      if (found) { child!.stdout!.removeAllListeners('data').resume(); done(found[1]!); }
    });
    child!.once('exit', (code) => fail(new Error(`the service exited ${code}: ${out}`)));
  });
  const call = async (path: string, key: string) => {
    const t = performance.now();
    const res = await fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${key}` } });
    await res.arrayBuffer();
    if (res.status !== 200) refused.set(res.status, (refused.get(res.status) ?? 0) + 1);
    return performance.now() - t;
  };
  // Answers other than 200, by status (the build before this measurement ran out of its statement timeout: 500).
  const refused = new Map<number, number>();
  const statuses = () => {
    const text = [...refused].map(([status, n]) => `${n} × ${status}`).join(', ');
    refused.clear();
    return text || 'all 200';
  };
  const repeat = async (path: string) => {
    const times: number[] = [];
    for (let i = 0; i < CALLS + 10; i++) {
      const ms = await call(path, petsKey);
      if (i >= 10) times.push(ms);
    }
    return { ...percentiles(times), answers: statuses() };
  };
  console.log(`one-event pages of GET /v1/events (ms, ${CALLS} calls each, one at a time)`);
  console.log('from the oldest     ', await repeat(`/v1/events?limit=1&after=${bounds.oldest}`));
  console.log('from the newest     ', await repeat(`/v1/events?limit=1&after=${bounds.newest - 2}`));
  console.log('order.updated, oldest', await repeat(`/v1/events?limit=1&type=order.updated&after=${bounds.oldest}`));
  console.log('pet.deleted (none)  ', await repeat(`/v1/events?limit=1&type=pet.deleted&after=${bounds.oldest}`));

  const petsFor = async (ms: number) => {
    const times: number[] = [];
    for (const until = performance.now() + ms; performance.now() < until;) times.push(await call('/v1/pets?limit=20', petsKey));
    return { ...percentiles(times), answers: statuses() };
  };
  await petsFor(2_000);
  console.log(`another key's GET /v1/pets (ms, one at a time for ${SECONDS} s)`);
  console.log('alone               ', await petsFor(SECONDS * 1000));

  // From the newest too: what any resuming subscription costs the instance, wherever it starts.
  const withResumes = async (from: number, label: string) => {
    let streaming = true;
    const resumes: number[] = [];
    const failures: string[] = [];
    const resumeLoop = async () => {
      while (streaming) {
        const controller = new AbortController();
        const t = performance.now();
        try {
          const res = await fetch(`${origin}/graphql`, {
            method: 'POST', signal: controller.signal,
            headers: { authorization: `Bearer ${streamKey}`, accept: 'text/event-stream', 'content-type': 'application/json' },
            body: JSON.stringify({ query: `subscription { petChanged(after: ${from}) { id } }` }),
          });
          let text = '';
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            text += Buffer.from(chunk).toString();
            if (text.includes('event: next')) break;
          }
          if (res.status !== 200 || !/"petChanged":\{"id":\d+/.test(text)) failures.push(`${res.status} ${text.slice(0, 200)}`);
          else resumes.push(performance.now() - t);
        } catch (error) {
          failures.push(String(error));
        } finally {
          controller.abort();
        }
        await new Promise((done) => setTimeout(done, PAUSE_MS));
      }
    };
    const loops = Array.from({ length: STREAMS }, resumeLoop);
    const withStreams = await petsFor(SECONDS * 1000);
    streaming = false;
    await Promise.all(loops);
    console.log(`with ${STREAMS} streams resuming ${label}`, withStreams);
    console.log(`each resume to its first event (${failures.length} failed${failures.length ? `: ${failures[0]}` : ''})`, resumes.length ? percentiles(resumes) : {});
  };
  await withResumes(bounds.oldest, 'from the oldest');
  await withResumes(bounds.newest - 2, 'from the newest');

  for (const [label, sql, params] of [
    ['page from the oldest', ...historyStatement({ after: bounds.oldest, upTo: bounds.newest, limit: 2 }, 'mysql')],
    ['page of a type', ...historyStatement({ after: bounds.oldest, upTo: bounds.newest, limit: 2, types: ['order.updated'] }, 'mysql')],
    ['page of a stream\'s types', ...historyStatement({ after: bounds.oldest, upTo: bounds.newest, limit: 200, types: ['pet.created', 'pet.updated', 'pet.deleted'] }, 'mysql')],
  ] as const) {
    // A build from before the (type, id) index has none to name.
    const plan = await admin.execute(`EXPLAIN ${sql}`, [...params] as never).then(([rows]) => rows as Record<string, unknown>[], (error: Error) => error);
    console.log(`${label}:`, plan instanceof Error ? plan.message : plan.map((p) => `${p.table} ${p.type} ${p.key ?? ''} rows=${p.rows} ${p.Extra ?? ''}`).join('; '));
  }
} finally {
  child?.kill();
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await admin.end();
}
