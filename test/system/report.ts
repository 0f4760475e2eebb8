/**
 * The system run's report: what a run recorded (every answer the clients saw, the faults, how long events
 * and webhooks took from commit, each instance's memory, the audit's violations) turned into figures people
 * can read. `buildReport` aggregates the records per second, so the report stays small however long the
 * run (a 30-minute run sees about a million answers); report-text.ts words it for the terminal, and
 * report-page.ts writes it as report.json and one HTML page with plots.
 */
import { SETTLE_MS, type Violation } from './audit.js';
import type { Sample } from './clients.js';
import type { FaultRecord } from './faults.js';

/** Everything a run recorded, as the run hands it over. Times are ms since the epoch. */
export interface RunRecords {
  /** When the load began. */
  readonly startedAt: number;
  readonly endedAt: number;
  readonly instances: number;
  /** Every answer the clients saw (`status` 0: no answer). */
  readonly samples: readonly Sample[];
  readonly faults: readonly FaultRecord[];
  /** An SSE event received at `at`, `ms` after its commit. */
  readonly eventDelays: readonly { at: number; ms: number }[];
  /** A webhook received at `at` by `endpoint`, `ms` after its event's commit. */
  readonly webhookDelays: readonly { at: number; ms: number; endpoint: string }[];
  /** Each instance's RSS, sampled about once a second. */
  readonly rss: readonly { at: number; instance: string; kb: number }[];
  /** Free-form figures the run computed (requests, writes, events, deliveries...). */
  readonly summary: Readonly<Record<string, string | number>>;
  readonly violations: readonly Violation[];
}

/** The answers of one part of the run. `errors` counts 5xx and no answer (a 429 is the limiter's answer, not an error). */
export interface Phase { name: string; requests: number; p50: number; p99: number; errors: number; }

/** How long something took from its commit, over the whole run. */
export interface DelayStats { readonly count: number; readonly p50: number; readonly p99: number; readonly max: number }

/** Delays from commit per second: the median and the worst (null: nothing arrived that second). */
export interface DelaySeries { readonly label: string; readonly p50: (number | null)[]; readonly max: (number | null)[] }

/** A fault as the run recorded it, with `start` in seconds since the load began and `ms` how long it lasted. */
export interface ReportFault extends FaultRecord { readonly start: number; readonly ms: number }

/**
 * A run, aggregated: what report.json holds and the HTML page draws. Every `perSecond` array has one entry
 * per second of the run, second `t[i]` since `startedAt`; latencies and delays are in ms, null for a second
 * with nothing to measure.
 */
export interface SystemReport {
  readonly startedAt: number;
  readonly endedAt: number;
  readonly instances: number;
  /** How long after a fault's recovery its answers still count as the fault's (the audit's SETTLE_MS). */
  readonly settleMs: number;
  readonly summary: Record<string, string | number>;
  readonly totals: {
    readonly answers: number;
    readonly writes: number;
    readonly reads: number;
    readonly serverErrors: number;
    readonly noAnswer: number;
    readonly tooMany: number;
    readonly events: DelayStats;
    readonly webhooks: DelayStats;
    readonly webhookEndpoints: readonly ({ readonly endpoint: string } & DelayStats)[];
    readonly rssPeakMb: Readonly<Record<string, number>>;
  };
  readonly phases: readonly Phase[];
  /** In the order they started. */
  readonly faults: readonly ReportFault[];
  /** How many the audit found, and the first of them (the page lists no more). */
  readonly violations: { readonly total: number; readonly first: readonly Violation[] };
  readonly perSecond: {
    readonly t: number[];
    readonly writes: number[];
    readonly reads: number[];
    readonly p50: (number | null)[];
    readonly p99: (number | null)[];
    readonly serverErrors: number[];
    readonly noAnswer: number[];
    readonly tooMany: number[];
    readonly events: DelaySeries;
    /** One per endpoint, or a single one for all when there are more than MAX_ENDPOINT_SERIES. */
    readonly webhooks: readonly DelaySeries[];
    readonly rss: readonly { readonly instance: string; readonly mb: (number | null)[] }[];
  };
}

/** Past this many webhook endpoints the delay plot would be a tangle: they are pooled into one series. */
const MAX_ENDPOINT_SERIES = 4;
const SHOWN_VIOLATIONS = 50;
/**
 * Records that arrive after the load ended (a feed read to its end, a subscriber's last events, a late
 * webhook) extend the time axis, up to this long: one absurd timestamp must not make a billion seconds.
 */
const LATE_MS = 10 * 60_000;

// ---------------------------------------------------------------------------------------------------------
// Aggregation

/** Nearest rank: the smallest value with at least `p` of all values at or below it. */
function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

// Latencies come from performance.now() with a dozen decimals: a hundredth of a ms is precision enough.
const round2 = (x: number) => Math.round(x * 100) / 100;
const sortedOf = (values: readonly number[]) => Float64Array.from(values).sort();
const isError = (status: number) => status === 0 || status >= 500;

/** Maps a time to its second of the run; the axis covers the load and the stragglers after it. */
interface Clock { readonly seconds: number; second(at: number): number }

function clockOf(records: RunRecords): Clock {
  let last = records.endedAt;
  for (const list of [records.samples, records.eventDelays, records.webhookDelays, records.rss]) {
    for (const record of list) if (record.at > last) last = record.at;
  }
  const { startedAt } = records;
  const seconds = Math.max(1, Math.ceil((Math.min(last, records.endedAt + LATE_MS) - startedAt) / 1_000));
  // Before the start or past the cap, a record is clamped into the first or last second rather than dropped.
  const second = (at: number) => Math.min(seconds - 1, Math.max(0, Math.floor((at - startedAt) / 1_000)));
  return { seconds, second };
}

/** Values grouped by their second, each second's sorted: `values[offsets[s] .. offsets[s + 1]]` is second s. */
interface BySecond { readonly offsets: Uint32Array; readonly values: Float64Array }

/** A counting sort by second, then one small sort per second: O(n log n) at worst, and no object per record. */
function groupBySecond<T extends { at: number }>(records: readonly T[], value: (record: T) => number, clock: Clock): BySecond {
  const offsets = new Uint32Array(clock.seconds + 1);
  const seconds = new Uint32Array(records.length);
  records.forEach((record, i) => {
    const s = clock.second(record.at);
    seconds[i] = s;
    offsets[s + 1] = offsets[s + 1]! + 1;
  });
  for (let s = 0; s < clock.seconds; s++) offsets[s + 1] = offsets[s + 1]! + offsets[s]!;
  const next = offsets.slice(0, clock.seconds);
  const values = new Float64Array(records.length);
  records.forEach((record, i) => {
    const s = seconds[i]!;
    values[next[s]!] = value(record);
    next[s] = next[s]! + 1;
  });
  for (let s = 0; s < clock.seconds; s++) values.subarray(offsets[s]!, offsets[s + 1]!).sort();
  return { offsets, values };
}

/** One figure per second from that second's sorted values; null for a second without any. */
function eachSecond(grouped: BySecond, figure: (sorted: Float64Array) => number): (number | null)[] {
  const out: (number | null)[] = [];
  for (let s = 0; s + 1 < grouped.offsets.length; s++) {
    const sorted = grouped.values.subarray(grouped.offsets[s]!, grouped.offsets[s + 1]!);
    out.push(sorted.length === 0 ? null : round2(figure(sorted)));
  }
  return out;
}

const maxOf = (sorted: Float64Array) => sorted[sorted.length - 1]!;

function delaySeries(label: string, delays: readonly { at: number; ms: number }[], clock: Clock): DelaySeries {
  const grouped = groupBySecond(delays, (d) => d.ms, clock);
  return { label, p50: eachSecond(grouped, (sorted) => percentile(sorted, 0.5)), max: eachSecond(grouped, maxOf) };
}

function delayStats(delays: readonly { ms: number }[]): DelayStats {
  const sorted = sortedOf(delays.map((d) => d.ms));
  return { count: sorted.length, p50: round2(percentile(sorted, 0.5)), p99: round2(percentile(sorted, 0.99)), max: round2(sorted.length ? maxOf(sorted) : 0) };
}

function byEndpoint(delays: RunRecords['webhookDelays']): Map<string, RunRecords['webhookDelays'][number][]> {
  const groups = new Map<string, RunRecords['webhookDelays'][number][]>();
  for (const delay of delays) {
    const group = groups.get(delay.endpoint);
    if (group) group.push(delay);
    else groups.set(delay.endpoint, [delay]);
  }
  return new Map([...groups].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })));
}

/** Answers per second by kind and by failure, and the latency of each second's answers. */
function answersPerSecond(samples: readonly Sample[], clock: Clock) {
  const counts = { writes: new Uint32Array(clock.seconds), reads: new Uint32Array(clock.seconds), serverErrors: new Uint32Array(clock.seconds), noAnswer: new Uint32Array(clock.seconds), tooMany: new Uint32Array(clock.seconds) };
  const bump = (array: Uint32Array, s: number) => { array[s] = array[s]! + 1; };
  for (const sample of samples) {
    const s = clock.second(sample.at);
    bump(sample.kind === 'write' ? counts.writes : counts.reads, s);
    if (sample.status === 0) bump(counts.noAnswer, s);
    else if (sample.status >= 500) bump(counts.serverErrors, s);
    else if (sample.status === 429) bump(counts.tooMany, s);
  }
  const latency = groupBySecond(samples, (sample) => sample.ms, clock);
  return {
    writes: Array.from(counts.writes), reads: Array.from(counts.reads),
    p50: eachSecond(latency, (sorted) => percentile(sorted, 0.5)), p99: eachSecond(latency, (sorted) => percentile(sorted, 0.99)),
    serverErrors: Array.from(counts.serverErrors), noAnswer: Array.from(counts.noAnswer), tooMany: Array.from(counts.tooMany),
  };
}

/** Each instance's RSS per second in MB: the highest reading of the second, as memory is watched for peaks. */
function rssPerSecond(rss: RunRecords['rss'], clock: Clock): SystemReport['perSecond']['rss'] {
  const byInstance = new Map<string, (number | null)[]>();
  for (const reading of rss) {
    let mb = byInstance.get(reading.instance);
    if (!mb) byInstance.set(reading.instance, mb = new Array<number | null>(clock.seconds).fill(null));
    const s = clock.second(reading.at);
    const value = Math.round(reading.kb / 1024 * 10) / 10;
    if (mb[s] === null || value > mb[s]!) mb[s] = value;
  }
  return [...byInstance].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })).map(([instance, mb]) => ({ instance, mb }));
}

const sum = (values: readonly number[]) => values.reduce((total, n) => total + n, 0);

/** Merged, sorted windows [start, end] (inclusive, as the audit's), one list per fault name in the order first started. */
function faultWindows(faults: readonly FaultRecord[]): Map<string, [number, number][]> {
  const windows = new Map<string, [number, number][]>();
  for (const fault of [...faults].sort((a, b) => a.startedAt - b.startedAt)) {
    const list = windows.get(fault.name) ?? [];
    const end = fault.recoveredAt + SETTLE_MS;
    const last = list.at(-1);
    if (last && fault.startedAt <= last[1]) last[1] = Math.max(last[1], end);
    else list.push([fault.startedAt, end]);
    windows.set(fault.name, list);
  }
  return windows;
}

/** Whether `at` falls in one of the sorted, disjoint windows: a binary search, as a long run has many. */
function within(windows: readonly [number, number][], at: number): boolean {
  let low = 0;
  let high = windows.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [start, end] = windows[middle]!;
    if (at < start) high = middle - 1;
    else if (at > end) low = middle + 1;
    else return true;
  }
  return false;
}

function phaseOf(name: string, latencies: readonly number[], errors: number): Phase {
  const sorted = sortedOf(latencies);
  return { name, requests: sorted.length, p50: round2(percentile(sorted, 0.5)), p99: round2(percentile(sorted, 0.99)), errors };
}

/**
 * The answers in calm (outside every fault's window: its start to its recovery and SETTLE_MS after, as the
 * audit counts), those in each fault's windows (all the windows of one fault name pooled; an answer in the
 * windows of two faults that overlap counts for both), and the whole run.
 */
export function phases(records: RunRecords): Phase[] {
  const group = (name: string) => ({ name, latencies: [] as number[], errors: 0 });
  const calm = group('calm');
  const whole = group('whole run');
  const faults = [...faultWindows(records.faults)].map(([name, windows]) => ({ ...group(name), windows }));
  const add = (into: ReturnType<typeof group>, sample: Sample) => {
    into.latencies.push(sample.ms);
    if (isError(sample.status)) into.errors += 1;
  };
  for (const sample of records.samples) {
    let inFault = false;
    for (const fault of faults) {
      if (!within(fault.windows, sample.at)) continue;
      add(fault, sample);
      inFault = true;
    }
    if (!inFault) add(calm, sample);
    add(whole, sample);
  }
  return [calm, ...faults, whole].map((g) => phaseOf(g.name, g.latencies, g.errors));
}

/** A violation's record as JSON will give it back (undefined fields gone), so report.json and the page agree with the report. */
function plain(violation: Violation): Violation {
  try {
    return { check: violation.check, record: violation.record === undefined ? null : JSON.parse(JSON.stringify(violation.record)) as unknown };
  } catch {
    return { check: violation.check, record: String(violation.record) };
  }
}

/** The run's figures as given, but a NaN or an Infinity, which JSON would turn into null, as text. */
function plainSummary(summary: RunRecords['summary']): Record<string, string | number> {
  return Object.fromEntries(Object.entries(summary).map(([key, value]) => [key, typeof value === 'number' && !Number.isFinite(value) ? String(value) : value]));
}

export function buildReport(records: RunRecords): SystemReport {
  const clock = clockOf(records);
  const answers = answersPerSecond(records.samples, clock);
  const endpoints = byEndpoint(records.webhookDelays);
  const webhooks = endpoints.size <= MAX_ENDPOINT_SERIES
    ? [...endpoints].map(([endpoint, delays]) => delaySeries(endpoint, delays, clock))
    : [delaySeries('all endpoints', records.webhookDelays, clock)];
  const rss = rssPerSecond(records.rss, clock);
  return {
    startedAt: records.startedAt,
    endedAt: records.endedAt,
    instances: records.instances,
    settleMs: SETTLE_MS,
    summary: plainSummary(records.summary),
    totals: {
      answers: records.samples.length,
      writes: sum(answers.writes),
      reads: sum(answers.reads),
      serverErrors: sum(answers.serverErrors),
      noAnswer: sum(answers.noAnswer),
      tooMany: sum(answers.tooMany),
      events: delayStats(records.eventDelays),
      webhooks: delayStats(records.webhookDelays),
      webhookEndpoints: [...endpoints].map(([endpoint, delays]) => ({ endpoint, ...delayStats(delays) })),
      rssPeakMb: Object.fromEntries(rss.map(({ instance, mb }) => [instance, mb.reduce<number>((peak, v) => Math.max(peak, v ?? 0), 0)])),
    },
    phases: phases(records),
    faults: [...records.faults].sort((a, b) => a.startedAt - b.startedAt).map((fault) => ({
      name: fault.name, target: fault.target, startedAt: fault.startedAt, recoveredAt: fault.recoveredAt,
      start: round2((fault.startedAt - records.startedAt) / 1_000), ms: fault.recoveredAt - fault.startedAt,
    })),
    violations: { total: records.violations.length, first: records.violations.slice(0, SHOWN_VIOLATIONS).map(plain) },
    perSecond: { t: Array.from({ length: clock.seconds }, (_, s) => s), ...answers, events: delaySeries('events', records.eventDelays, clock), webhooks, rss },
  };
}
