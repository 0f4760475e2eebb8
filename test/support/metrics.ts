import { spawn } from 'node:child_process';
import { expect } from 'vitest';

/** Prometheus's own tool, from Debian's `prometheus` package (`apt-get install -y prometheus`). */
export const PROMTOOL = process.env.PROMTOOL_PATH ?? '/usr/bin/promtool';

/** A scrape of /metrics, as Prometheus makes it. */
export async function scrape(url: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${url}/metrics`, { headers });
  expect(res.status).toBe(200);
  return res.text();
}

/** Runs promtool with `input` on its stdin; its exit code and what it printed (both streams). */
export function promtool(args: readonly string[], input?: string, cwd?: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PROMTOOL, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.on('error', (error: NodeJS.ErrnoException) => reject(error.code === 'ENOENT'
      ? new Error(`${PROMTOOL} is missing: apt-get install -y prometheus (Debian's package has promtool)`)
      : error));
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(input ?? '');
  });
}

const labelsOf = (text: string): Record<string, string> =>
  Object.fromEntries([...text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, name, value]) => [name!, value!]));

/** Every sample of a scrape: its metric name, labels and value. */
export function samples(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  const found = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (match) found.push({ name: match[1]!, labels: labelsOf(match[2] ?? ''), value: Number(match[3]) });
  }
  return found;
}

/** The value of the one series of `name` whose labels include `labels` (undefined when there is none). */
export function seriesValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const matching = samples(text).filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  if (matching.length > 1) throw new Error(`${matching.length} series of ${name} match ${JSON.stringify(labels)}`);
  return matching[0]?.value;
}

/** The metric families a scrape declares (# TYPE lines), with their types. */
export function families(text: string): Map<string, string> {
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => [name!, type!]));
}
