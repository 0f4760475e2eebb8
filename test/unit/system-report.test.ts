import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { SETTLE_MS } from '../system/audit.js';
import type { Sample } from '../system/clients.js';
import type { FaultRecord } from '../system/faults.js';
import { buildReport, phases, type RunRecords } from '../system/report.js';
import { writeReport } from '../system/report-page.js';
import { terminalSummary } from '../system/report-text.js';
import { CHROMIUM } from '../support/browser.js';

const T = Date.UTC(2025, 0, 1, 12, 0, 0);
const sample = (at: number, ms: number, status = 200, kind: Sample['kind'] = 'read'): Sample => ({ at: T + at, ms, status, kind });
const fault = (name: string, from: number, to: number, target = 'instance-2'): FaultRecord => ({ name, target, startedAt: T + from, recoveredAt: T + to });
const records = (overrides: Partial<RunRecords>): RunRecords => ({
  startedAt: T, endedAt: T + 120_000, instances: 3, samples: [], faults: [], eventDelays: [], webhookDelays: [], rss: [], summary: {}, violations: [],
  ...overrides,
});

/** Deterministic noise, so a failure reproduces. */
function random(seed: number) {
  return () => {
    seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0;
    return seed / 2 ** 32;
  };
}

/** A 120 s run: ~40 answers a second, two faults, 5xx and lost answers inside the first, events, webhooks, memory. */
function syntheticRun(): RunRecords {
  const next = random(7);
  const faults = [fault('kill -9 an instance', 30_000, 34_000), fault('primary restarted', 80_000, 86_000, 'mariadb primary')];
  const samples: Sample[] = [];
  for (let at = 0; at < 120_000; at += 25) {
    const inKill = at >= 30_000 && at <= 34_000;
    const status = inKill && at % 500 === 0 ? 503 : inKill && at % 1_000 === 250 ? 0 : at % 5_000 === 0 ? 429 : 200;
    samples.push(sample(at, 2 + next() * 20 + (inKill ? 200 : 0), status, at % 100 === 0 ? 'write' : 'read'));
  }
  const eventDelays = Array.from({ length: 1_200 }, (_, i) => ({ at: T + i * 100, ms: 5 + next() * 50 }));
  const webhookDelays = Array.from({ length: 600 }, (_, i) => ({ at: T + i * 200, ms: 20 + next() * 100, endpoint: i % 2 ? 'receiver-a' : 'receiver-b' }));
  const rss = ['instance-1', 'instance-2', 'instance-3'].flatMap((instance, n) => Array.from({ length: 120 }, (_, s) => ({ at: T + s * 1_000 + 500, instance, kb: (90 + n * 10 + s / 10) * 1024 })));
  return records({
    samples, faults, eventDelays, webhookDelays, rss,
    summary: { requests: samples.length, writes: samples.filter((s) => s.kind === 'write').length, events: 1_200, deliveries: 600 },
    violations: [{ check: 'an acknowledged write is stored exactly once', record: { name: 'w1-7', status: 201, id: 7, stored: [7, 8] } }],
  });
}

describe('the system run\'s report: phases', () => {
  it('splits the answers into calm, each fault (its windows pooled, settling included) and the whole run, with hand-counted figures', () => {
    const calm = Array.from({ length: 100 }, (_, i) => sample(20_000 + i * 100, i + 1));
    const run = records({
      faults: [fault('kill -9 an instance', 10_000, 12_000), fault('replica stopped', 40_000, 45_000), fault('kill -9 an instance', 70_000, 71_000)],
      samples: [
        ...calm,
        sample(11_000, 200, 0, 'write'), // during the first kill
        sample(12_000 + SETTLE_MS - 500, 500, 503), // after its recovery, while it settles: still the kill's
        sample(70_500, 10), // the second kill: the same phase
        sample(42_000, 30, 429), // a 429 is no error
      ],
    });
    expect(phases(run)).toEqual([
      // 1..100 ms: nearest-rank p50 is the 50th value, p99 the 99th.
      { name: 'calm', requests: 100, p50: 50, p99: 99, errors: 0 },
      { name: 'kill -9 an instance', requests: 3, p50: 200, p99: 500, errors: 2 },
      { name: 'replica stopped', requests: 1, p50: 30, p99: 30, errors: 0 },
      // 1..100, 10, 30, 200, 500: the 52nd of 104 is 50, the 103rd is 200.
      { name: 'whole run', requests: 104, p50: 50, p99: 200, errors: 2 },
    ]);
  });

  it('counts an answer at a window\'s last millisecond (recovery + SETTLE_MS) as the fault\'s, one a millisecond later as calm', () => {
    const run = records({ faults: [fault('primary restarted', 1_000, 2_000)], samples: [sample(2_000 + SETTLE_MS, 7, 503), sample(2_001 + SETTLE_MS, 9, 503)] });
    const [calm, restarted] = phases(run);
    expect(restarted).toEqual({ name: 'primary restarted', requests: 1, p50: 7, p99: 7, errors: 1 });
    expect(calm).toEqual({ name: 'calm', requests: 1, p50: 9, p99: 9, errors: 1 });
  });

  it('has calm and the whole run alone when no fault was injected, and zeros when nothing answered', () => {
    expect(phases(records({}))).toEqual([
      { name: 'calm', requests: 0, p50: 0, p99: 0, errors: 0 },
      { name: 'whole run', requests: 0, p50: 0, p99: 0, errors: 0 },
    ]);
  });
});

describe('the system run\'s report: per second', () => {
  it('counts answers, errors and latency, delays and memory in the second they came in', () => {
    const report = buildReport(records({
      endedAt: T + 3_000,
      samples: [sample(100, 10, 201, 'write'), sample(900, 30), sample(1_500, 5, 503, 'write'), sample(2_999, 1_000, 0), sample(2_500, 2, 429)],
      eventDelays: [{ at: T + 500, ms: 100 }, { at: T + 600, ms: 300 }, { at: T + 2_100, ms: 50 }],
      webhookDelays: [{ at: T + 700, ms: 40, endpoint: 'b' }, { at: T + 1_100, ms: 60, endpoint: 'a' }, { at: T + 1_200, ms: 20, endpoint: 'a' }],
      rss: [{ at: T + 200, instance: 'i1', kb: 102_400 }, { at: T + 1_200, instance: 'i1', kb: 204_800 }, { at: T + 1_700, instance: 'i1', kb: 153_600 }, { at: T + 2_000, instance: 'i2', kb: 51_200 }],
    }));
    expect(report.perSecond).toEqual({
      t: [0, 1, 2],
      writes: [1, 1, 0],
      reads: [1, 0, 2],
      p50: [10, 5, 2],
      p99: [30, 5, 1_000],
      serverErrors: [0, 1, 0],
      noAnswer: [0, 0, 1],
      tooMany: [0, 0, 1],
      events: { label: 'events', p50: [100, null, 50], max: [300, null, 50] },
      webhooks: [{ label: 'a', p50: [null, 20, null], max: [null, 60, null] }, { label: 'b', p50: [40, null, null], max: [40, null, null] }],
      // The highest reading of each second, in MB; null where an instance was not sampled.
      rss: [{ instance: 'i1', mb: [100, 200, null] }, { instance: 'i2', mb: [null, null, 50] }],
    });
    expect(report.totals).toMatchObject({ answers: 5, writes: 2, reads: 3, serverErrors: 1, noAnswer: 1, tooMany: 1, rssPeakMb: { i1: 200, i2: 50 } });
    expect(report.totals.events).toEqual({ count: 3, p50: 100, p99: 300, max: 300 });
  });

  it('stretches the axis over answers that came after the load ended', () => {
    const report = buildReport(records({ endedAt: T + 3_000, samples: [sample(4_500, 1)] }));
    expect(report.perSecond.t).toEqual([0, 1, 2, 3, 4]);
    expect(report.perSecond.reads).toEqual([0, 0, 0, 0, 1]);
  });

  it('pools webhook endpoints into one series past four', () => {
    const webhookDelays = ['a', 'b', 'c', 'd', 'e'].map((endpoint, i) => ({ at: T + i, ms: i + 1, endpoint }));
    const report = buildReport(records({ endedAt: T + 1_000, webhookDelays }));
    expect(report.perSecond.webhooks).toEqual([{ label: 'all endpoints', p50: [3], max: [5] }]);
    expect(report.totals.webhookEndpoints.map((e) => e.endpoint)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});

describe('the system run\'s report: a two-minute run', () => {
  const run = syntheticRun();
  const report = buildReport(run);

  it('puts the 5xx and lost answers of the first fault in its phase, none in calm', () => {
    expect(report.perSecond.t).toHaveLength(120);
    expect(report.perSecond.writes.reduce((a, b) => a + b) + report.perSecond.reads.reduce((a, b) => a + b)).toBe(run.samples.length);
    const byName = Object.fromEntries(report.phases.map((p) => [p.name, p]));
    expect(Object.keys(byName)).toEqual(['calm', 'kill -9 an instance', 'primary restarted', 'whole run']);
    expect(byName['calm']!.errors).toBe(0);
    expect(byName['kill -9 an instance']!.errors).toBe(9 + 4);
    expect(byName['kill -9 an instance']!.p99).toBeGreaterThan(200); // the slow answers of the fault itself
    expect(byName['whole run']!.requests).toBe(run.samples.length);
    expect(report.perSecond.serverErrors.slice(30, 35)).toEqual([2, 2, 2, 2, 1]);
    expect(report.faults.map((f) => [f.start, f.ms])).toEqual([[30, 4_000], [80, 6_000]]);
  });

  it('summarises in a few lines of text, the phases as a table', () => {
    const text = terminalSummary(report);
    expect(text.split('\n').length).toBeLessThan(25);
    expect(text).toMatch(/^ {2}phase +requests +p50 +p99 +errors$/m);
    expect(text).toMatch(/^ {2}kill -9 an instance +\d+ .+ 13$/m);
    expect(text).toContain('violations: 1; the first: an acknowledged write is stored exactly once');
    expect(terminalSummary(buildReport(records({})))).toContain('violations: none');
  });

  describe('as files', () => {
    const dirs: string[] = [];
    afterEach(async () => {
      await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
    });
    const written = async (what = report) => {
      const dir = await mkdtemp(join(tmpdir(), 'system-report-'));
      dirs.push(dir);
      const paths = await writeReport(join(dir, 'nested'), what);
      return { dir, paths, json: await readFile(paths.json, 'utf8'), html: await readFile(paths.html, 'utf8') };
    };
    const embedded = (html: string) => JSON.parse(/<script type="application\/json" id="report-data">([^]*?)<\/script>/.exec(html)![1]!) as unknown;

    it('writes report.json and report.html, both giving back the report', async () => {
      const { dir, paths, json, html } = await written();
      expect(paths).toEqual({ json: join(dir, 'nested', 'report.json'), html: join(dir, 'nested', 'report.html') });
      expect(JSON.parse(json)).toEqual(report);
      expect(embedded(html)).toEqual(report);
    });

    it('makes a page that loads nothing from the network: uPlot is inline', async () => {
      const { html } = await written();
      expect(html).not.toMatch(/src="http/i);
      expect(html).not.toMatch(/href="http/i);
      expect(html).not.toContain('//cdn');
      expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
      const uplot = await readFile(new URL('../../node_modules/uplot/dist/uPlot.iife.min.js', import.meta.url), 'utf8');
      expect(html).toContain(uplot.trim());
      expect(html).toContain('.uplot');
    });

    it('keeps a violation\'s text inside its tags', async () => {
      const nasty = buildReport({ ...run, violations: [{ check: 'x</script><script>alert(1)</script>', record: { name: '</script><b>' } }] });
      const { html } = await written(nasty);
      expect(html.match(/<\/script>/g)).toHaveLength(3); // uPlot, the data, the page's own
      expect(html).not.toContain('<script>alert(1)');
      expect(html).toContain('x&#60;/script&#62;&#60;script&#62;alert(1)&#60;/script&#62;');
      expect(embedded(html)).toEqual(nasty);
    });

    it('says "none" in green when there is no violation', async () => {
      const { html } = await written(buildReport({ ...run, violations: [] }));
      expect(html).toContain('<p class="good">none</p>');
    });

    /** The page as Chromium draws it: how many pixels each plot's canvas painted, the page's errors, what it tried to fetch. */
    async function render(browser: Browser, html: string, screenshot?: string) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const requests: string[] = [];
      await context.route('**/*', (route) => {
        const url = route.request().url();
        if (url === pathToFileURL(html).href) return route.continue();
        requests.push(url);
        return route.abort();
      });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
      await page.goto(pathToFileURL(html).href);
      await page.waitForFunction(() => document.querySelectorAll('.uplot canvas').length === 5);
      const painted = await page.$$eval('.uplot canvas', (canvases) => (canvases as HTMLCanvasElement[]).map((canvas) => {
        const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
        let n = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
        return n;
      }));
      if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
      await context.close();
      return { painted, errors, requests };
    }

    it.skipIf(!existsSync(CHROMIUM))('draws five plots in Chromium without an error or a request, with data and without', async () => {
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      });
      try {
        const full = await render(browser, (await written()).paths.html, '/tmp/system-report.png');
        expect(full.errors).toEqual([]);
        expect(full.requests).toEqual([]);
        // Drawn, not just there: each canvas has painted its axes, bands and lines.
        expect(full.painted).toHaveLength(5);
        for (const n of full.painted) expect(n).toBeGreaterThan(1_000);
        // A calm run without events, webhooks or memory readings: empty plots (log scales too), still no error.
        const sparse = await render(browser, (await written(buildReport(records({ endedAt: T + 10_000, samples: [sample(1_000, 3)] })))).paths.html);
        expect(sparse.errors).toEqual([]);
        expect(sparse.painted).toHaveLength(5);
      } finally {
        await browser.close();
      }
    }, 60_000);
  });
});

describe('the system run\'s report: scale', () => {
  it('aggregates a million answers in seconds', () => {
    const next = random(11);
    const startedAt = T;
    const samples: Sample[] = Array.from({ length: 1_000_000 }, (_, i) => ({
      at: startedAt + Math.floor(i * 1.8), ms: next() * 50, status: i % 997 === 0 ? 503 : 200, kind: i % 3 === 0 ? 'write' : 'read',
    }));
    const faults = Array.from({ length: 30 }, (_, i) => fault(['kill -9 an instance', 'rolling restart', 'primary restarted'][i % 3]!, i * 60_000 + 20_000, i * 60_000 + 25_000));
    const began = performance.now();
    const report = buildReport(records({ endedAt: startedAt + 1_800_000, samples, faults }));
    const took = performance.now() - began;
    expect(took).toBeLessThan(10_000);
    expect(report.totals.answers).toBe(1_000_000);
    expect(report.perSecond.t).toHaveLength(1_800);
    expect(report.phases.at(-1)!.requests).toBe(1_000_000);
    expect(JSON.stringify(report).length).toBeLessThan(500_000);
  }, 60_000); // generous: a loaded CI machine; on an idle one buildReport takes about a second
});
