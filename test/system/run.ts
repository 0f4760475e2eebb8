/**
 * The whole system as operators run it: `npm run system -- --minutes N [--instances 3] [--calm]`. Starts
 * the deployment (deployment.ts), runs clients through the load balancer for N minutes while faults
 * follow one another (faults.ts; none with --calm), checks the books, prints a summary and stops exactly
 * what it started. Exits 1 when a check finds a violation.
 */
import { parseArgs } from 'node:util';
import { auditFeed, auditStreams, auditWrites, failuresOutside, SETTLE_MS, type StoredPet } from './audit.js';
import { feedReader, graphqlReader, restWriter, subscriber, type ClientLog, type FeedEvent } from './clients.js';
import { deploy, type Deployment } from './deployment.js';
import { FAULT_NAMES, faultSchedule, type FaultRecord } from './faults.js';

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '1' }, instances: { type: 'string', default: '3' }, calm: { type: 'boolean', default: false } },
});
const minutes = Number(values.minutes);
const count = Number(values.instances);
if (!(minutes > 0) || !Number.isInteger(count) || count < 1) {
  console.error('usage: npm run system -- [--minutes N (> 0)] [--instances N (>= 1)] [--calm]');
  process.exit(2);
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

let deployment: Deployment | undefined;
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await deployment?.stop();
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => { void stop().then(() => process.exit(130)); });

try {
  console.log(`system: starting ${count} instances, HAProxy, MariaDB primary + replica, Redis + Sentinels`);
  deployment = await deploy({ count });
  console.log(`system: up at ${deployment.url} (files in ${deployment.dir})`);
  const writerKey = await deployment.key('enterprise', { perMinute: 1_000_000, perDay: 100_000_000 });
  const readerKey = await deployment.key('enterprise', { perMinute: 1_000_000, perDay: 100_000_000 });
  const prefix = `system-${Date.now().toString(36)}`;
  const log: ClientLog = { writes: [], samples: [] };
  const until = Date.now() + minutes * 60_000;
  const faults: FaultRecord[] = [];
  const feed: FeedEvent[] = [];
  const streams: number[][] = [[], []];
  const reconnections: number[] = [];
  // Every fault at least once in the run: spread evenly over it, a quiet spell before each.
  const gapMs = (minutes * 60_000) / (FAULT_NAMES.length + 2);
  const keyless = process.env.SYSTEM_BREAK === 'keyless';
  if (keyless) console.log('system: SYSTEM_BREAK=keyless: the writers send no Idempotency-Key (the audit must fail)');
  const writers = Promise.all([1, 2, 3, 4].map((i) => restWriter(deployment!.url, writerKey, `${prefix}-w${i}`, until, log, keyless)));
  await Promise.all([
    writers,
    ...[1, 2].map(() => graphqlReader(deployment!.url, readerKey, until, log)),
    feedReader(deployment.url, readerKey, writers, log, feed),
    ...streams.map(async (seen) => { reconnections.push((await subscriber(deployment!.url, readerKey, writers, seen)).reconnections); }),
    values.calm ? Promise.resolve() : faultSchedule(deployment, until, gapMs, faults),
  ]);
  const stored = await deployment.database.query('primary', 'SELECT id, name FROM pets WHERE name LIKE ?', [`${prefix}%`]) as StoredPet[];
  const violations = [
    ...auditWrites(log.writes, stored),
    ...auditFeed(feed, stored, prefix),
    ...auditStreams(streams, feed),
    ...failuresOutside(log.samples, faults),
  ];

  const latencies = log.samples.map((s) => s.ms).sort((a, b) => a - b);
  const statuses = new Map<number, number>();
  for (const sample of log.samples) statuses.set(sample.status, (statuses.get(sample.status) ?? 0) + 1);
  const acknowledged = log.writes.filter((w) => w.status >= 200 && w.status < 300).length;
  console.log([
    `system: ${log.samples.length} answers in ${minutes} min (${(log.samples.length / (minutes * 60)).toFixed(0)}/s),`
    + ` p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms`,
    `system: statuses ${[...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status || 'no answer'}: ${n}`).join(', ')}`,
    ...faults.map((f) => {
      const inside = new Map<string, number>();
      for (const s of log.samples) {
        if (s.at < f.startedAt || s.at > f.recoveredAt + SETTLE_MS || (s.status !== 0 && s.status < 500)) continue;
        const what = `${s.status || 'no answer'} to a ${s.kind}`;
        inside.set(what, (inside.get(what) ?? 0) + 1);
      }
      const failed = [...inside].map(([what, n]) => `${n} × ${what}`).join(', ') || 'no 5xx, no lost answer';
      return `system: fault ${f.name} (${f.target}) ${new Date(f.startedAt).toISOString()}, over in ${f.recoveredAt - f.startedAt} ms: ${failed}`;
    }),
    `system: ${log.writes.length} writes, ${acknowledged} acknowledged, ${log.writes.filter((w) => w.tries > 1).length} retried`
    + `; not acknowledged: ${log.writes.filter((w) => w.status < 200 || w.status >= 300).map((w) => `${w.status || 'no answer'} after ${w.tries} tries`).join(', ') || 'none'}`,
    `system: the feed reader read ${feed.length} pet.created events; the subscribers were given ${streams.map((seen) => seen.length).join(' and ')} events`
    + ` (${reconnections.join(' and ')} reconnections)`,
    violations.length === 0 ? 'system: the books balance: no violation'
      : `system: ${violations.length} violations; the first:\n${violations.slice(0, 5).map((v) => `  ${v.check}: ${JSON.stringify(v.record)}`).join('\n')}`,
  ].join('\n'));
  process.exitCode = violations.length === 0 ? 0 : 1;
} catch (error) {
  console.error('system: the run failed:', error);
  process.exitCode = 1;
} finally {
  await stop();
}
