/**
 * The whole system as operators run it: `npm run system -- --minutes N [--instances 3]`. Starts the
 * deployment (deployment.ts), runs clients through the load balancer for N minutes, checks the books,
 * prints a summary and stops exactly what it started. Exits 1 when a check finds a violation.
 */
import { parseArgs } from 'node:util';
import { auditWrites } from './audit.js';
import { graphqlReader, restWriter, type ClientLog } from './clients.js';
import { deploy, type Deployment } from './deployment.js';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '1' }, instances: { type: 'string', default: '3' } } });
const minutes = Number(values.minutes);
const count = Number(values.instances);
if (!(minutes > 0) || !Number.isInteger(count) || count < 1) {
  console.error('usage: npm run system -- [--minutes N (> 0)] [--instances N (>= 1)]');
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
  await Promise.all([
    ...[1, 2, 3, 4].map((i) => restWriter(deployment!.url, writerKey, `${prefix}-w${i}`, until, log)),
    ...[1, 2].map(() => graphqlReader(deployment!.url, readerKey, until, log)),
  ]);
  await deployment.database.caughtUp();
  const violations = await auditWrites(log.writes, deployment.database, prefix);

  const latencies = log.samples.map((s) => s.ms).sort((a, b) => a - b);
  const statuses = new Map<number, number>();
  for (const sample of log.samples) statuses.set(sample.status, (statuses.get(sample.status) ?? 0) + 1);
  const acknowledged = log.writes.filter((w) => w.status >= 200 && w.status < 300).length;
  console.log([
    `system: ${log.samples.length} answers in ${minutes} min (${(log.samples.length / (minutes * 60)).toFixed(0)}/s),`
    + ` p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms`,
    `system: statuses ${[...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status || 'no answer'}: ${n}`).join(', ')}`,
    `system: ${log.writes.length} writes, ${acknowledged} acknowledged, ${log.writes.filter((w) => w.tries > 1).length} retried`,
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
