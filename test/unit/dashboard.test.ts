import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface Panel {
  id: number; type: string; title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  targets?: { expr: string; refId: string; datasource: { uid: string } }[];
}

const dashboard = JSON.parse(readFileSync('deploy/grafana/animal-store.json', 'utf8')) as {
  uid: string; title: string; panels: Panel[]; templating: { list: { name: string; type: string }[] }; __inputs?: unknown;
};

/** Importable as is: Grafana's import takes it without asking for anything but the data source. */
describe('the Grafana dashboard', () => {
  it('has a stable uid, and chooses its Prometheus through a variable rather than an import input', () => {
    expect(dashboard.uid).toBe('animal-store');
    expect(dashboard.__inputs).toBeUndefined();
    expect(dashboard.templating.list.map(({ name, type }) => `${name}:${type}`)).toEqual(['datasource:datasource', 'job:query', 'instance:query']);
  });

  it('gives every panel an id of its own, a place on the 24-column grid, and queries on the chosen data source', () => {
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels) {
      expect(panel.gridPos.x + panel.gridPos.w, panel.title).toBeLessThanOrEqual(24);
      if (panel.type === 'row') continue;
      expect(panel.datasource?.uid, panel.title).toBe('${datasource}');
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) {
        expect(target.datasource.uid).toBe('${datasource}');
        // Every query is held to the instances chosen above.
        for (const selector of target.expr.matchAll(/\b(?:animal_store|process|nodejs)_\w+\{([^}]*)\}/g)) expect(selector[1], target.expr).toContain('job=~"$job", instance=~"$instance"');
      }
    }
  });

  it('covers RED per route and per operation, limits, streams, events, webhooks, the backends, memory and GC', () => {
    const rows = dashboard.panels.filter((panel) => panel.type === 'row').map((panel) => panel.title);
    expect(rows).toEqual(['Overview', 'Requests (RED) by route', 'GraphQL operations', 'Limits, keys and retries', 'Streams and events', 'Webhooks', 'Database and Redis', 'Memory and CPU']);
  });
});
