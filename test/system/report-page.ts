/**
 * The system run's report as files: report.json, and one HTML page with plots that opens offline, from a
 * CI artifact or a mail (uPlot and the data are inlined).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SystemReport } from './report.js';
import { clockTime, count, delayLine, minutes, ms } from './report-text.js';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The report as JSON people can read too: indented, but each per-second series on one line, not one number a line. */
function readableJson(report: SystemReport): string {
  return JSON.stringify(report, null, 2).replace(/\[\n\s*((?:-?[\d.e+-]+|null)(?:,\n\s*(?:-?[\d.e+-]+|null))*)\n\s*\]/g, (_, items: string) => `[${items.replace(/,\n\s*/g, ', ')}]`);
}

export async function writeReport(dir: string, report: SystemReport): Promise<{ json: string; html: string }> {
  await mkdir(dir, { recursive: true });
  const json = join(dir, 'report.json');
  const html = join(dir, 'report.html');
  const [uplotJs, uplotCss] = await Promise.all(['uPlot.iife.min.js', 'uPlot.min.css'].map((file) => readFile(new URL(`../../node_modules/uplot/dist/${file}`, import.meta.url), 'utf8')));
  await Promise.all([writeFile(json, `${readableJson(report)}\n`), writeFile(html, page(report, uplotJs!, uplotCss!))]);
  return { json, html };
}

function table(head: string[], rows: string[][], numeric: ReadonlySet<number> = new Set()): string {
  const cell = (tag: string, text: string, i: number) => `<${tag}${numeric.has(i) ? ' class="num"' : ''}>${text}</${tag}>`;
  return `<table><thead><tr>${head.map((h, i) => cell('th', escapeHtml(h), i)).join('')}</tr></thead>`
    + `<tbody>${rows.map((row) => `<tr>${row.map((c, i) => cell('td', c, i)).join('')}</tr>`).join('')}</tbody></table>`;
}

function summaryTable(report: SystemReport): string {
  const { totals } = report;
  const rows: [string, string][] = [
    ['answers', count.format(totals.answers)],
    ['writes / reads', `${count.format(totals.writes)} / ${count.format(totals.reads)}`],
    ['5xx / no answer / 429', `${count.format(totals.serverErrors)} / ${count.format(totals.noAnswer)} / ${count.format(totals.tooMany)}`],
    ['events', delayLine(totals.events)],
    ['webhooks', delayLine(totals.webhooks)],
    ...totals.webhookEndpoints.map((e): [string, string] => [`webhooks to ${e.endpoint}`, delayLine(e)]),
    ...Object.entries(totals.rssPeakMb).map(([instance, mb]): [string, string] => [`RSS peak ${instance}`, `${mb.toFixed(1)} MB`]),
    ...Object.entries(report.summary).map(([key, value]): [string, string] => [key, typeof value === 'number' ? count.format(value) : value]),
  ];
  return table(['figure', 'value'], rows.map(([key, value]) => [escapeHtml(key), escapeHtml(value)]));
}

function phasesTable(report: SystemReport): string {
  return table(['phase', 'requests', 'p50', 'p99', 'errors (5xx + no answer)'], report.phases.map((p) => [
    escapeHtml(p.name), count.format(p.requests), p.requests ? ms(p.p50) : '–', p.requests ? ms(p.p99) : '–',
    p.errors ? `<span class="bad">${count.format(p.errors)}</span>` : '0',
  ]), new Set([1, 2, 3, 4]));
}

function faultsTable(report: SystemReport): string {
  if (report.faults.length === 0) return '<p>No fault was injected.</p>';
  const names = [...new Set(report.faults.map((f) => f.name))];
  return table(['#', 'fault', 'target', 'start', 'wall clock (UTC)', 'duration'], report.faults.map((f, i) => [
    String(i + 1),
    `<span class="swatch" data-fault="${names.indexOf(f.name)}"></span>${escapeHtml(f.name)}`,
    escapeHtml(f.target), clockTime(f.start), new Date(f.startedAt).toISOString().slice(11, 23), `${(f.ms / 1_000).toFixed(1)} s`,
  ]), new Set([0, 3, 5]));
}

function violationsTable(report: SystemReport): string {
  const { total, first } = report.violations;
  if (total === 0) return '<p class="good">none</p>';
  const more = total > first.length ? `<p>The first ${first.length} of ${count.format(total)}; report.json holds the same.</p>` : '';
  return more + table(['check', 'record'], first.map((v) => [escapeHtml(v.check), `<code>${escapeHtml(JSON.stringify(v.record))}</code>`]));
}

function verdict(report: SystemReport): string {
  const total = report.violations.total;
  return total === 0 ? '<span class="good">the books balance: no violation</span>'
    : `<span class="bad">${count.format(total)} violation${total === 1 ? '' : 's'}</span>`;
}

const CSS = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222; margin: 1.5em auto; max-width: 1400px; padding: 0 1em; }
h1 { font-size: 1.5em; margin: 0 0 .2em; }
h2 { font-size: 1.15em; margin: 1.6em 0 .5em; border-bottom: 1px solid #ddd; padding-bottom: .2em; }
.meta { color: #555; margin: 0 0 1em; }
.good { color: #1a7f37; font-weight: 600; }
.bad { color: #c62828; font-weight: 600; }
.columns { display: flex; flex-wrap: wrap; gap: 2em; align-items: flex-start; }
.columns > section { flex: 1 1 520px; min-width: 0; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
tbody tr:nth-child(even) { background: #fafafa; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; word-break: break-all; }
.swatch { display: inline-block; width: .9em; height: .9em; margin-right: .4em; vertical-align: -.1em; border: 1px solid #999; }
.plot { margin: 1em 0 1.5em; }
.note { color: #555; font-size: 13px; }
`;

/**
 * The page's own script: draws the five plots from the embedded data, each fault a shaded band (the
 * lighter tail is the settling that still counts as the fault's). Plain ES2017 in a string, since the page
 * must carry it; no `${` in it.
 */
const PAGE_SCRIPT = `
(function () {
  'use strict';
  var report = JSON.parse(document.getElementById('report-data').textContent);
  var ps = report.perSecond;
  var COLORS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#7f7f7f', '#000000'];
  var FAULT_COLORS = [[230, 159, 0], [86, 180, 233], [0, 158, 115], [204, 121, 167], [213, 94, 0], [120, 120, 120], [240, 228, 66], [0, 114, 178]];
  var names = [];
  report.faults.forEach(function (f) { if (names.indexOf(f.name) < 0) names.push(f.name); });
  function faultColor(name, alpha) {
    var c = FAULT_COLORS[names.indexOf(name) % FAULT_COLORS.length];
    return 'rgba(' + c[0] + ',' + c[1] + ',' + c[2] + ',' + alpha + ')';
  }
  document.querySelectorAll('.swatch[data-fault]').forEach(function (el) {
    el.style.background = faultColor(names[Number(el.getAttribute('data-fault'))], 0.45);
  });
  var faults = report.faults.map(function (f, i) {
    return { n: i + 1, name: f.name, start: f.start, end: f.start + f.ms / 1000, settled: f.start + (f.ms + report.settleMs) / 1000 };
  });
  function clock(s) {
    if (s == null) return '';
    var m = Math.floor(s / 60), r = Math.round(s - m * 60);
    if (r === 60) { m += 1; r = 0; }
    return m + ':' + (r < 10 ? '0' : '') + r;
  }
  function band(u, from, to, fill) {
    var x0 = u.valToPos(from, 'x', true), x1 = u.valToPos(to, 'x', true);
    var left = Math.max(u.bbox.left, Math.min(x0, x1)), right = Math.min(u.bbox.left + u.bbox.width, Math.max(x0, x1));
    if (right <= left) return;
    u.ctx.fillStyle = fill;
    u.ctx.fillRect(left, u.bbox.top, Math.max(right - left, uPlot.pxRatio), u.bbox.height);
  }
  function drawBands(u) {
    u.ctx.save();
    faults.forEach(function (f) {
      band(u, f.start, f.end, faultColor(f.name, 0.28));
      band(u, f.end, f.settled, faultColor(f.name, 0.10));
    });
    u.ctx.restore();
  }
  // The names run down each band's left edge: bands close together never overlap their labels.
  function drawLabels(u) {
    var ctx = u.ctx, px = uPlot.pxRatio;
    ctx.save();
    ctx.font = (11 * px) + 'px system-ui, sans-serif';
    // uPlot leaves the alignment of its last axis on the context.
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    faults.forEach(function (f) {
      var x = u.valToPos(f.start, 'x', true);
      if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
      ctx.save();
      ctx.translate(x + 14 * px, u.bbox.top + 4 * px);
      ctx.rotate(Math.PI / 2);
      var text = f.n + ' ' + f.name;
      // A pale ground under the name, so a line crossing it does not make it unreadable.
      ctx.fillStyle = 'rgba(255,255,255,0.75)';
      ctx.fillRect(-2 * px, -1 * px, ctx.measureText(text).width + 4 * px, 13 * px);
      ctx.fillStyle = 'rgba(40,40,40,0.9)';
      ctx.fillText(text, 0, 0);
      ctx.restore();
    });
    ctx.restore();
  }
  function positive(values) {
    return values.map(function (v) { return v == null || v <= 0 ? null : v; });
  }
  function anyValue(values) {
    return values.some(function (v) { return v != null; });
  }
  var plots = [];
  function plot(id, unit, lines, opts) {
    opts = opts || {};
    var el = document.getElementById(id);
    var series = [{ label: 'time', value: function (u, v) { return clock(v); } }];
    var data = [ps.t];
    lines.forEach(function (line, i) {
      var values = opts.log ? positive(line.values) : line.values;
      series.push({
        label: line.label,
        stroke: line.color || COLORS[i % COLORS.length],
        width: line.width || 1.5,
        dash: line.dash,
        fill: line.fill,
        paths: opts.steps ? uPlot.paths.stepped({ align: 1 }) : undefined,
        points: { show: false },
        value: function (u, v) { return v == null ? '–' : (Math.round(v * 100) / 100) + ' ' + unit; },
      });
      data.push(values);
    });
    var y = opts.log ? { distr: 3, log: 10 } : { range: function (u, min, max) { return [0, Math.max((max || 0) * 1.1, opts.minMax || 1)]; } };
    // A log scale with nothing on it has no range: give it one, so an empty plot still draws its bands.
    if (opts.log && !lines.some(function (line) { return anyValue(positive(line.values)); })) y = { range: [1, 1000], distr: 3, log: 10 };
    var u = new uPlot({
      width: el.clientWidth,
      height: 260,
      cursor: { sync: { key: 'run' } },
      scales: { x: { time: false }, y: y },
      axes: [
        { values: function (u, ticks) { return ticks.map(clock); }, label: 'time since the load began (m:ss)' },
        { label: unit, size: 64 },
      ],
      series: series,
      hooks: { drawClear: [drawBands], draw: [drawLabels] },
    }, data, el);
    plots.push({ u: u, el: el });
  }
  plot('throughput', 'answers/s', [
    { label: 'writes', values: ps.writes },
    { label: 'reads', values: ps.reads },
  ]);
  plot('latency', 'ms', [
    { label: 'p50', values: ps.p50 },
    { label: 'p99', values: ps.p99 },
  ], { log: true });
  plot('errors', 'answers/s', [
    { label: '5xx', values: ps.serverErrors, color: '#c62828', fill: 'rgba(198,40,40,0.25)' },
    { label: 'no answer', values: ps.noAnswer, color: '#222222', fill: 'rgba(0,0,0,0.15)' },
    { label: '429', values: ps.tooMany, color: '#E69F00', fill: 'rgba(230,159,0,0.2)' },
  ], { steps: true, minMax: 5 });
  var delays = [
    { label: 'event p50', values: ps.events.p50, color: COLORS[0] },
    { label: 'event max', values: ps.events.max, color: COLORS[0], dash: [6, 4], width: 1 },
  ];
  ps.webhooks.forEach(function (w, i) {
    var color = COLORS[(i + 1) % COLORS.length];
    delays.push({ label: 'webhook ' + w.label + ' p50', values: w.p50, color: color });
    delays.push({ label: 'webhook ' + w.label + ' max', values: w.max, color: color, dash: [6, 4], width: 1 });
  });
  plot('delays', 'ms', delays, { log: true });
  plot('rss', 'MB', ps.rss.map(function (r) { return { label: r.instance, values: r.mb }; }), { minMax: 10 });
  window.addEventListener('resize', function () {
    plots.forEach(function (p) { p.u.setSize({ width: p.el.clientWidth, height: 260 }); });
  });
})();
`;

const PLOTS: [id: string, title: string][] = [
  ['throughput', 'Answers per second'],
  ['latency', 'Latency, p50 and p99 of each second (log scale)'],
  ['errors', 'Errors per second: 5xx, no answer, 429'],
  ['delays', 'Delay from commit: SSE events and webhooks, p50 and max of each second (log scale)'],
  ['rss', 'RSS of each instance'],
];

// Inlined text must not end the element that holds it.
const inScript = (text: string) => text.replace(/<\/script/gi, '<\\/script');
const embeddedJson = (report: SystemReport) => JSON.stringify(report).replace(/</g, '\\u003c');

function page(report: SystemReport, uplotJs: string, uplotCss: string): string {
  const started = new Date(report.startedAt).toISOString();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>System run ${escapeHtml(started)}</title>
<style>${uplotCss.replace(/<\/style/gi, '<\\/style')}</style>
<style>${CSS}</style>
</head>
<body>
<h1>System run report</h1>
<p class="meta">${minutes(report).toFixed(1)} minutes of load from ${escapeHtml(started)}, ${report.instances} instances,
${report.faults.length} fault${report.faults.length === 1 ? '' : 's'}: ${verdict(report)}</p>
<div class="columns">
<section><h2>Phases</h2>
<p class="note">Calm: every answer outside all fault windows (a fault's start to its recovery and ${report.settleMs / 1_000} s of settling after).
A fault's phase pools all its windows.</p>
${phasesTable(report)}</section>
<section><h2>Figures</h2>${summaryTable(report)}</section>
</div>
<h2>Faults</h2>
<p class="note">Each plot shades a fault from its start to its recovery, and lighter the ${report.settleMs / 1_000} s of settling that still count as the fault's.</p>
${faultsTable(report)}
${PLOTS.map(([id, title]) => `<h2>${escapeHtml(title)}</h2>\n<div class="plot" id="${id}"></div>`).join('\n')}
<h2>Violations</h2>
${violationsTable(report)}
<script>${inScript(uplotJs)}</script>
<script type="application/json" id="report-data">${embeddedJson(report)}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
