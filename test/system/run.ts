/**
 * The whole system as operators run it: `npm run system -- --minutes N [--instances 3] [--calm]`. Starts
 * the deployment (deployment.ts), runs clients through the load balancer for N minutes while faults
 * follow one another (faults.ts; none with --calm), checks the books (audit.ts), writes a report
 * (report.ts: the terminal, report.json, report.html) and stops exactly what it started. Exits 1 when a
 * check finds a violation. SYSTEM_BREAK (breaks.ts) breaks a client or the run on purpose, to show the
 * checks failing.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { until as waitFor } from '../scale/lab/redis-cluster.js';
import { wsSubscriber } from './ws-subscriber.js';
import { sleep } from '../support/time.js';
import {
  auditCachedReads, auditFeed, auditFeedAgainstOutbox, auditLimits, auditStreams, auditUpdates, auditWebhooks, auditWrites, crashes, failuresOutside, internalErrors, restartCosts,
  type StoredPet, type UpdateRecord,
} from './audit.js';
import { breaks, crash, unloggedFault } from './breaks.js';
import {
  feedReader, graphqlReader, graphqlWriter, greedyClient, restWriter, subscriber, updater, versionedClient, versionObserver,
  type ClientLog, type FeedEvent, type LimitedCall, type VersionRead, type VersionWrite,
} from './clients.js';
import { deploy, type Deployment } from './deployment.js';
import { SENTINEL_MASTER } from '../scale/lab/redis-sentinel.js';
import { logExcerpts } from './log-excerpts.js';
import { chosenFaults, faultSchedule, gapFor, type FaultRecord } from './faults.js';
import { unplannedFailovers, watchFailovers } from './sentinel-watch.js';
import { receiver, register, type Receiver } from './receivers.js';
import { buildReport } from './report.js';
import { writeReport } from './report-page.js';
import { terminalSummary } from './report-text.js';
import { missingPackages } from './prerequisites.js';
import { startIssuer, type TestIssuer } from '../support/oidc-issuer.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '1' }, instances: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '1' }, calm: { type: 'boolean', default: false }, faults: { type: 'string' },
  },
});
const minutes = Number(values.minutes);
const count = Number(values.instances);
const rounds = Number(values.rounds);
if (!(minutes > 0) || !Number.isInteger(count) || count < 1 || !Number.isInteger(rounds) || rounds < 1) {
  console.error('usage: npm run system -- [--minutes N (> 0)] [--instances N (>= 1)] [--rounds N (>= 1): each fault at least N times] [--faults a,b: only those] [--calm]');
  process.exit(2);
}
const chosen = chosenFaults(values.faults);
const broken = breaks(process.env.SYSTEM_BREAK);

/**
 * The greedy keys' plans and their limits per minute, as the auditor holds them to (the `limits` break
 * makes the REST one an enterprise key with twice as many).
 */
const GREEDY = { rest: { plan: 'pro', perMinute: 300 }, graphql: { plan: 'free', perMinute: 60 } } as const;
/** After the load, how long the webhooks' retries have to deliver what they still owe. */
const DRAIN_MS = 180_000;

let deployment: Deployment | undefined;
let failoverWatch: { stop(): Promise<void> } | undefined;
let receivers: Receiver[] = [];
let tokenIssuer: TestIssuer | undefined;
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await Promise.all(receivers.map((r) => r.stop()));
  await tokenIssuer?.close();
  await failoverWatch?.stop();
  await deployment?.stop();
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => { void stop().then(() => process.exit(130)); });

/** Each instance's resident memory, from /proc, about once a second until `until`. */
async function sampleRss(d: Deployment, until: number, into: { at: number; instance: string; kb: number }[]) {
  while (Date.now() < until) {
    await Promise.all(d.instances.map(async (one) => {
      const pid = one.process()?.pid;
      const status = pid === undefined ? undefined : await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined);
      const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status ?? '')?.[1]);
      if (kb > 0) into.push({ at: Date.now(), instance: one.name, kb });
    }));
    await sleep(1_000);
  }
}

/** Waits until every receiver holds every event of its types the feed holds, or `ms` passes. */
async function drained(hooks: readonly Receiver[], feed: readonly FeedEvent[], ms: number) {
  const owed = () => hooks.reduce((sum, r) => {
    const got = new Set(r.receipts.map((x) => x.eventId));
    return sum + feed.filter((e) => r.types.includes(e.type) && !got.has(e.id)).length;
  }, 0);
  const started = Date.now();
  await waitFor('the webhooks\' deliveries', async () => owed() === 0, ms).catch(() => undefined);
  return { owed: owed(), ms: Date.now() - started };
}

// What it needs, before it starts anything: a missing program is named with its package, not met as a
// stack trace halfway through with half a deployment left running.
const missing = missingPackages();
if (missing.length > 0) {
  console.error(`system: needs Debian's ${missing.join(', ')}: apt-get install -y ${missing.join(' ')}`);
  process.exit(2);
}

try {
  console.log(`system: starting ${count} instances, HAProxy, MariaDB primary + replica, Redis + Sentinels`);
  // A frontend's users call with access tokens from their identity provider: one of the writers is one of them.
  tokenIssuer = await startIssuer({ accessTokenTtlSeconds: minutes * 60 + 600 });
  deployment = await deploy({
    count,
    env: {
      WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      JWT_ISSUERS: tokenIssuer.issuer, JWT_AUDIENCE: tokenIssuer.audience, JWT_PLAN: 'business',
    },
  });
  const d = deployment;
  console.log(`system: up at ${d.url} (files in ${d.dir})`);
  if (broken.size > 0) console.log(`system: SYSTEM_BREAK=${[...broken].join(',')}: the audit must fail`);
  const roomy = { perMinute: 1_000_000, perDay: 100_000_000 };
  const [writerKey, readerKey, hookKey, restGreedy, graphqlGreedy, versionKeyA, versionKeyB] = await Promise.all([
    d.key('enterprise', roomy), d.key('enterprise', roomy), d.key('enterprise', roomy),
    broken.has('limits') ? d.key('enterprise', { perMinute: GREEDY.rest.perMinute * 2, perDay: 100_000_000 }) : d.key(GREEDY.rest.plan),
    d.key(GREEDY.graphql.plan),
    d.key('enterprise', roomy), d.key('enterprise', roomy),
  ]);
  const prefix = `system-${Date.now().toString(36)}`;
  const userToken = await tokenIssuer.token('app-1', { scope: 'pets:read pets:write' });
  const startedAt = Date.now();
  const until = startedAt + minutes * 60_000;
  // Some slow, one failing for 20 s a third of the way in: its deliveries wait for their retries.
  const failFrom = startedAt + minutes * 20_000;
  receivers = await Promise.all([
    receiver('prompt', ['pet.created'], { kind: 'prompt' }, broken.has('webhook-ack') ? 50 : 0),
    receiver('slow', ['pet.updated'], { kind: 'slow', ms: 300 }),
    receiver('failing', ['pet.updated'], { kind: 'failing', from: failFrom, until: failFrom + 20_000 }),
  ]);
  for (const hook of receivers) await register(d.url, hookKey, hook);
  // Another endpoint's secret: every signature the slow receiver checks then fails.
  if (broken.has('webhook-secret')) receivers[1]!.secret = receivers[0]!.secret;

  const log: ClientLog = { writes: [], samples: [] };
  const faults: FaultRecord[] = [];
  const failovers = await watchFailovers(d.redis.settings, SENTINEL_MASTER);
  failoverWatch = failovers;
  const feed: FeedEvent[] = [];
  // Two subscribers over Server-Sent Events, one over a WebSocket (through HAProxy too).
  const streams = [{ seen: [] as number[], times: [] as number[] }, { seen: [] as number[], times: [] as number[] }, { seen: [] as number[], times: [] as number[] }];
  const reconnections: number[] = [];
  const calls: LimitedCall[] = [];
  const updates: UpdateRecord[] = [];
  const rss: { at: number; instance: string; kb: number }[] = [];
  // The response cache's readers: two keys each renaming a pet of its own and reading it back, another polling both.
  const versionWrites: VersionWrite[] = [];
  const versionReads: VersionRead[] = [];
  const versionedPets: number[] = [];
  // Every fault `rounds` times in the run: spread evenly over it, a quiet spell before each.
  const gapMs = gapFor(minutes * 60_000, rounds, chosen);
  // Everything that writes: once it is done, the readers read to the end of what is there.
  const writers = Promise.all([
    ...[1, 2, 3, 4].map((i) => restWriter(d.url, writerKey, `${prefix}-w${i}`, until, log, broken.has('keyless'))),
    // Under the business plan's 1,000 a minute: a write every 100 ms.
    restWriter(d.url, userToken, `${prefix}-t1`, until, log, broken.has('keyless'), 100),
    graphqlWriter(d.url, writerKey, `${prefix}-g1`, until, log),
    updater(d.url, writerKey, until, log, updates),
    versionedClient(d.url, versionKeyA, `${prefix}-va`, until, log, versionWrites, versionReads, versionedPets),
    versionedClient(d.url, versionKeyB, `${prefix}-vb`, until, log, versionWrites, versionReads, versionedPets),
  ]);
  const greedy = (name: keyof typeof GREEDY, secret: string) =>
    [1, 2, 3].map(() => greedyClient(d.url, { name, secret }, name, until, calls));
  await Promise.all([
    writers,
    ...[1, 2].map(() => graphqlReader(d.url, readerKey, until, log)),
    versionObserver(d.url, readerKey, until, versionedPets, versionReads),
    feedReader(d.url, readerKey, writers, log, feed),
    ...streams.map(async ({ seen, times }, n) => {
      const subscribe = n === 2 ? wsSubscriber : subscriber;
      reconnections.push((await subscribe(d.url, readerKey, writers, seen, times, !broken.has('no-resume'))).reconnections);
    }),
    ...greedy('rest', restGreedy), ...greedy('graphql', graphqlGreedy),
    sampleRss(d, until, rss),
    values.calm ? Promise.resolve() : faultSchedule(d, until, gapMs, faults, chosen),
    broken.has('unlogged-fault') ? unloggedFault(d, startedAt + (until - startedAt) / 2 + gapMs / 2) : Promise.resolve(),
    broken.has('crash') ? crash(d, startedAt + (until - startedAt) / 3 + gapMs / 2) : Promise.resolve(),
  ]);
  const endedAt = Date.now();
  await failovers.stop();
  for (const fault of unplannedFailovers(failovers, faults)) {
    console.log(`system: ${new Date(fault.recoveredAt).toISOString()} the Sentinels failed Redis over on their own (no fault asked): counted as a fault from ${new Date(fault.startedAt).toISOString()}`);
    faults.push(fault);
  }
  faults.sort((a, b) => a.startedAt - b.startedAt);
  const drain = await drained(receivers, feed, DRAIN_MS);
  console.log(`system: webhooks drained in ${drain.ms} ms${drain.owed > 0 ? `; ${drain.owed} deliveries still owed` : ''}`);

  const stored = await d.database.query('primary', 'SELECT id, name FROM pets WHERE name LIKE ?', [`${prefix}%`]) as StoredPet[];
  const limits = auditLimits(calls, new Map(Object.entries(GREEDY).map(([name, { perMinute }]) => [name, perMinute])), faults, count);
  const outbox = auditFeedAgainstOutbox(feed, (await d.database.query('primary', 'SELECT id FROM events ORDER BY id')).map((row: { id: number }) => Number(row.id)));
  const violations = [
    ...auditWrites(log.writes, stored),
    ...auditFeed(feed, stored, prefix),
    ...outbox.violations,
    ...auditUpdates(updates, feed),
    ...auditStreams(streams.map((s) => s.seen), feed),
    ...auditWebhooks(receivers, feed),
    ...auditCachedReads(versionWrites, versionReads),
    ...limits.violations,
    ...failuresOutside(log.samples, faults),
    ...internalErrors(log.samples),
    ...restartCosts(log.samples, faults),
    ...crashes(d.instances),
    // A run that did not do what it was asked proves nothing of what it skipped.
    ...(values.calm ? [] : chosen.filter((name) => faults.filter((f) => f.name === name).length < rounds)
      .map((name) => ({ check: 'every fault ran as often as asked', record: { fault: name, ran: faults.filter((f) => f.name === name).length, asked: rounds } }))),
  ];

  const committed = new Map(feed.map((e) => [e.id, Date.parse(e.occurredAt)]));
  const eventDelays = streams.flatMap(({ seen, times }) => seen.flatMap((id, i) => {
    const at = committed.get(id);
    return at === undefined ? [] : [{ at: times[i]!, ms: times[i]! - at }];
  }));
  const webhookDelays = receivers.flatMap((r) => {
    const first = new Map<number, number>();
    for (const x of r.receipts) if (!first.has(x.eventId)) first.set(x.eventId, x.at - x.occurredAt);
    return r.receipts.filter((x) => first.get(x.eventId) === x.at - x.occurredAt).map((x) => ({ at: x.at, ms: x.at - x.occurredAt, endpoint: r.name }));
  });
  const acknowledged = log.writes.filter((w) => w.status >= 200 && w.status < 300).length;
  const report = buildReport({
    startedAt, endedAt, instances: count, samples: log.samples, faults, eventDelays, webhookDelays, rss, violations,
    summary: {
      minutes, instances: count,
      writes: log.writes.length, acknowledged, retried: log.writes.filter((w) => w.tries > 1).length,
      'applied, answer lost (409 IDEMPOTENCY_KEY_APPLIED)': log.writes.filter((w) => w.code === 'IDEMPOTENCY_KEY_APPLIED').length,
      'not acknowledged': log.writes.filter((w) => (w.status < 200 || w.status >= 300) && w.code !== 'IDEMPOTENCY_KEY_APPLIED').length,
      'events read from the feed': feed.length,
      'event ids given out to transactions that rolled back': outbox.rolledBack,
      'updates (acknowledged / sent)': `${updates.filter((u) => u.status >= 200 && u.status < 300).length} / ${updates.length}`,
      'events given to the subscribers': streams.map((s) => s.seen.length).join(' and '),
      'subscribers\' reconnections': reconnections.join(' and '),
      ...Object.fromEntries(receivers.map((r) => [`webhooks to ${r.name} (${r.types.join(', ')})`,
        `${new Set(r.receipts.map((x) => x.webhookId)).size} delivered, ${r.receipts.length} receipts, ${r.refused} refused on purpose`])),
      'webhooks still owed after the drain': drain.owed,
      'greedy calls (2xx / 429)': `${calls.filter((c) => c.status >= 200 && c.status < 300).length} / ${calls.filter((c) => c.status === 429).length}`,
      'windows that used the in-process allowance': limits.allowanceWindows,
      'versioned renames (acknowledged / sent)': `${versionWrites.filter((w) => w.ackAt !== undefined).length} / ${versionWrites.length}`,
      'reads of the versioned pets (own key / another key)': `${versionReads.filter((r) => r.own).length} / ${versionReads.filter((r) => !r.own).length}`,
      'those reads by how the response cache answered': ['hit', 'miss', 'bypass', '304'].map((c) => `${c} ${versionReads.filter((r) => r.cache === c).length}`).join(', '),
    },
  });
  const files = await writeReport(d.dir, report);
  console.log(terminalSummary(report));
  console.log(`system: report: ${files.html} (and ${files.json})`);
  const byCheck = new Map<string, number>();
  for (const v of violations) byCheck.set(v.check, (byCheck.get(v.check) ?? 0) + 1);
  console.log(violations.length === 0 ? 'system: the books balance: no violation' : [
    `system: ${violations.length} violations: ${[...byCheck].map(([check, n]) => `${n} × ${check}`).join('; ')}`,
    // The first few of each check: a run broken in several ways shows each.
    ...[...byCheck.keys()].flatMap((check) => violations.filter((v) => v.check === check).slice(0, 3).map((v) => `  ${v.check}: ${JSON.stringify(v.record)}`)),
  ].join('\n'));
  // A failed answer or a crash: what the logs said just before and after the first, to tell what it was.
  const first = violations.find((v) => typeof (v.record as { at?: unknown }).at === 'string');
  if (first) {
    const at = Date.parse((first.record as { at: string }).at);
    const excerpt = await logExcerpts(d.dir, d.instances.map((one) => one.name), d.redis.logs, at - 5_000, at + 2_000);
    console.log([`system: what the logs said from 5 s before the first of those (${first.check}) to 2 s after:`, ...excerpt].join('\n'));
  }
  process.exitCode = violations.length === 0 ? 0 : 1;
} catch (error) {
  console.error('system: the run failed:', error);
  process.exitCode = 1;
} finally {
  await stop();
  // A run that failed half-way leaves its clients retrying against what it stopped, until their end: done.
  process.exit(process.exitCode ?? 0);
}
