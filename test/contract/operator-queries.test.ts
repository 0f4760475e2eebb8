import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { families, scrape } from '../support/metrics.js';
import { ownPrometheus, PROMETHEUS } from '../support/prometheus.js';
import { startServer, type TestServer } from '../support/server.js';

const RULES = 'deploy/prometheus/alerts.yml';
const DASHBOARD = 'deploy/grafana/animal-store.json';

/** Each alert's `expr`, one line or a block. */
function ruleExpressions(text: string): string[] {
  const found: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const match = /^(\s*)expr: (.*)$/.exec(line);
    if (!match) return;
    if (match[2] !== '|') {
      found.push(match[2]!);
      return;
    }
    const block: string[] = [];
    for (let j = i + 1; j < lines.length && (lines[j]!.trim() === '' || lines[j]!.search(/\S/) > match[1]!.length); j++) block.push(lines[j]!.trim());
    found.push(block.join(' ').trim());
  });
  return found;
}

interface Dashboard {
  panels: { title: string; targets?: { expr: string }[] }[];
  templating: { list: { name: string; definition?: string }[] };
}

/** Every query of the dashboard, its variables given what Grafana would send with "All" chosen. */
function dashboardExpressions(dashboard: Dashboard): string[] {
  const queries = [
    ...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)),
    ...dashboard.templating.list.flatMap((variable) => (variable.definition ? [variable.definition.replace(/^label_values\((.*), \w+\)$/, '$1')] : [])),
  ];
  return queries.map((expr) => expr.replaceAll('$__rate_interval', '1m').replaceAll('$job', '.+').replaceAll('$instance', '.+'));
}

const metricNames = (expr: string) => [...expr.matchAll(/\b((?:animal_store|process|nodejs)_[a-z0-9_]+)\b/g)].map(([, name]) => name!);

const rules = ruleExpressions(readFileSync(RULES, 'utf8'));
const dashboard = dashboardExpressions(JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard);

/**
 * The alert rules and the dashboard read only what the service exposes: each metric they name is in a
 * real scrape (on both backends), and a real Prometheus, scraping a real instance, evaluates every rule
 * and runs every panel's query without an error.
 */
describe('the alert rules and the dashboard against a real scrape', () => {
  let api: TestServer;
  beforeAll(async () => {
    api = await startServer();
    // Traffic of each kind, so the histograms and counters have series.
    await api.get('/v1/pets');
    await api.get('/v1/pets/987654');
    await api.gql('query Dashboard { pets(limit: 1) { id } }');
    await fetch(`${api.url}/v1/pets`);
  });
  afterAll(async () => { await api?.close(); });

  it('finds every metric they name in the scrape', async () => {
    expect(rules.length).toBeGreaterThanOrEqual(12);
    expect(dashboard.length).toBeGreaterThanOrEqual(40);
    // A family's samples, a histogram's buckets, sum and count among them: a labelled counter nothing has
    // counted yet has no sample, but its family is there (and a query of it is empty, not an error).
    const exposed = new Set([...families(await scrape(api.url))].flatMap(([name, type]) => (type === 'histogram' ? [name, `${name}_bucket`, `${name}_sum`, `${name}_count`] : [name])));
    const named = new Set([...rules, ...dashboard].flatMap(metricNames));
    expect([...named].filter((name) => !exposed.has(name))).toEqual([]);
    expect(named.size).toBeGreaterThanOrEqual(40);
  });

  it.skipIf(!existsSync(PROMETHEUS) && process.env.CI !== 'true')('has Prometheus evaluate every rule and run every panel\'s query without an error', async () => {
    const prometheus = await ownPrometheus(new URL(api.url).host, [RULES]);
    try {
      // Three scrapes at least with traffic between them, so that rate() has samples that differ; then
      // every rule evaluated once.
      await expect.poll(async () => {
        await api.get('/v1/pets');
        return (await prometheus.query('count_over_time(up{job="animal-store"}[1m])')).data?.result[0]?.value?.[1];
      }, { timeout: 20_000, interval: 250 }).toMatch(/^([3-9]|\d\d+)$/);
      await expect.poll(async () => (await prometheus.rules()).filter((rule) => rule.health !== 'ok'), { timeout: 20_000, interval: 250 }).toEqual([]);
      expect((await prometheus.query('up{job="animal-store"}')).data?.result[0]?.value?.[1]).toBe('1');
      const failed: string[] = [];
      for (const expr of [...rules, ...dashboard]) {
        const result = await prometheus.query(expr);
        if (result.status !== 'success') failed.push(`${expr}: ${result.error}`);
      }
      expect(failed).toEqual([]);
      // And the traffic shows: the dashboard's request rate is above 0.
      const rate = await prometheus.query('sum(rate(animal_store_http_requests_total{job=~".+"}[1m]))');
      expect(Number(rate.data?.result[0]?.value?.[1])).toBeGreaterThan(0);
    } finally {
      await prometheus.stop();
    }
  }, 60_000);
});
