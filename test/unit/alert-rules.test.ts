import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROMTOOL, promtool } from '../support/metrics.js';

const RULES = 'deploy/prometheus/alerts.yml';
const TESTS = 'deploy/prometheus/alerts.test.yml';
const withPromtool = existsSync(PROMTOOL) || process.env.CI === 'true';

const rules = readFileSync(RULES, 'utf8');
const alerts = [...rules.matchAll(/^\s+- alert: (\w+)$/gm)].map(([, name]) => name!);

describe('the alert rules', () => {
  it.skipIf(!withPromtool)('pass `promtool check rules`', async () => {
    const { code, output } = await promtool(['check', 'rules', RULES]);
    expect(output).toContain(`SUCCESS: ${alerts.length} rules found`);
    expect(code).toBe(0);
  });

  it.skipIf(!withPromtool)('pass their unit tests (`promtool test rules`)', async () => {
    const { code, output } = await promtool(['test', 'rules', 'alerts.test.yml'], undefined, 'deploy/prometheus');
    expect(output).toContain('SUCCESS');
    expect(code).toBe(0);
  });

  it.skipIf(!withPromtool)('load from the example Prometheus configuration (`promtool check config`)', async () => {
    const { code, output } = await promtool(['check', 'config', 'prometheus.yml'], undefined, 'deploy/prometheus');
    expect(output).toContain('is valid prometheus config file syntax');
    expect(code).toBe(0);
  });

  it('each have a unit test that fires them, a severity, and a runbook section that exists', () => {
    const tests = readFileSync(TESTS, 'utf8');
    const runbook = readFileSync('docs/runbook.md', 'utf8');
    const sections = new Set([...runbook.matchAll(/^## (\w+)$/gm)].map(([, heading]) => heading!.toLowerCase()));
    expect(alerts.length).toBeGreaterThanOrEqual(12);
    for (const alert of alerts) {
      // A test that expects it to fire: an exp_alerts list with entries, after its alertname.
      expect(tests, alert).toMatch(new RegExp(`alertname: ${alert}\\n\\s+exp_alerts:\\n\\s+- exp_labels`));
      expect(rules, alert).toContain(`runbook_url: docs/runbook.md#${alert.toLowerCase()}`);
      expect(sections, alert).toContain(alert.toLowerCase());
    }
    expect(rules.match(/severity: (critical|warning)/g)).toHaveLength(alerts.length);
  });
});
