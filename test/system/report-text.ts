/** The system run's report as text: the summary the run prints in the terminal, and the figures' wording the page shares. */
import type { DelayStats, Phase, SystemReport } from './report.js';

export const count = new Intl.NumberFormat('en-US');
export const ms = (x: number) => `${x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)} ms`;
/** Seconds since the start as m:ss.s, the page's axis unit. */
export function clockTime(seconds: number): string {
  // Rounded first, so 59.96 s is 1:00.0 rather than 0:60.0.
  const tenths = Math.round(seconds * 10);
  return `${Math.floor(tenths / 600)}:${((tenths % 600) / 10).toFixed(1).padStart(4, '0')}`;
}
export const minutes = (report: SystemReport) => (report.endedAt - report.startedAt) / 60_000;
export const delayLine = (d: DelayStats) => d.count === 0 ? 'none' : `${count.format(d.count)}, from commit p50 ${ms(d.p50)}, p99 ${ms(d.p99)}, max ${ms(d.max)}`;

function phaseTable(phases: readonly Phase[]): string[] {
  const width = Math.max(12, ...phases.map((p) => p.name.length));
  const row = (cells: string[]) => `  ${cells[0]!.padEnd(width)}${cells.slice(1).map((c) => c.padStart(11)).join('')}`;
  return [
    row(['phase', 'requests', 'p50', 'p99', 'errors']),
    ...phases.map((p) => row([p.name, count.format(p.requests), p.requests ? ms(p.p50) : '-', p.requests ? ms(p.p99) : '-', count.format(p.errors)])),
  ];
}

export function terminalSummary(report: SystemReport): string {
  const { totals } = report;
  const seconds = Math.max(1, (report.endedAt - report.startedAt) / 1_000);
  const rss = Object.entries(totals.rssPeakMb).map(([instance, mb]) => `${instance} ${mb.toFixed(1)} MB`).join(', ');
  return [
    `report: ${minutes(report).toFixed(1)} min from ${new Date(report.startedAt).toISOString()}, ${report.instances} instances`,
    `answers: ${count.format(totals.answers)} (${(totals.answers / seconds).toFixed(0)}/s; ${count.format(totals.writes)} writes, ${count.format(totals.reads)} reads);`
    + ` 5xx ${count.format(totals.serverErrors)}, no answer ${count.format(totals.noAnswer)}, 429 ${count.format(totals.tooMany)}`,
    `events: ${delayLine(totals.events)}`,
    `webhooks: ${delayLine(totals.webhooks)}`,
    ...(totals.webhookEndpoints.length > 1 ? totals.webhookEndpoints.map((e) => `  ${e.endpoint}: ${delayLine(e)}`) : []),
    `rss peak: ${rss || 'not sampled'}`,
    ...(Object.keys(report.summary).length ? [`figures: ${Object.entries(report.summary).map(([key, value]) => `${key} ${value}`).join(', ')}`] : []),
    ...phaseTable(report.phases),
    `faults: ${report.faults.length || 'none'}`,
    ...report.faults.map((f) => `  ${clockTime(f.start).padStart(7)} for ${(f.ms / 1_000).toFixed(1).padStart(5)} s  ${f.name} (${f.target})`),
    report.violations.total === 0 ? 'violations: none'
      : `violations: ${report.violations.total}; the first: ${report.violations.first[0]!.check}: ${JSON.stringify(report.violations.first[0]!.record)}`,
  ].join('\n');
}
