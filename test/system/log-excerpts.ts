import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

interface Entry {
  readonly level?: number;
  readonly time?: number;
  readonly msg?: string;
  readonly err?: { readonly message?: string };
}

const parse = (line: string): Entry | undefined => {
  try {
    return JSON.parse(line) as Entry;
  } catch {
    return undefined;
  }
};

/** A Redis or Sentinel log line: `pid:role day month year hh:mm:ss.mmm level message`. */
const REDIS_LINE = /^\d+:\w (\d+ \w+ \d+ [\d:.]+) [.\-*#] (.*)$/;

/**
 * What the instances logged as warnings or worse, what the load balancer said, and what the Sentinels
 * saw, between `from` and `to`, in time order: printed with a failing run's violations, since CI keeps
 * the output and not the run's folder.
 */
export async function logExcerpts(
  dir: string, instances: readonly string[], sentinelLogs: readonly string[], from: number, to: number, most = 30,
): Promise<string[]> {
  const lines: { at: number; text: string }[] = [];
  for (const name of instances) {
    for (const line of (await readFile(join(dir, `${name}.log`), 'utf8').catch(() => '')).split('\n')) {
      const entry = parse(line);
      if (!entry?.time || (entry.level ?? 0) < 40 || entry.time < from || entry.time > to) continue;
      lines.push({ at: entry.time, text: `${name}: ${entry.msg ?? ''}${entry.err?.message ? ` (${entry.err.message})` : ''}` });
    }
  }
  for (const line of (await readFile(join(dir, 'haproxy.log'), 'utf8').catch(() => '')).split('\n')) {
    const at = Date.parse(line.slice(0, 24));
    if (at >= from && at <= to) lines.push({ at, text: `haproxy: ${line.slice(25)}` });
  }
  for (const [n, file] of sentinelLogs.entries()) {
    for (const line of (await readFile(file, 'utf8').catch(() => '')).split('\n')) {
      const [, time, text] = REDIS_LINE.exec(line) ?? [];
      const at = time ? Date.parse(`${time} UTC`) : NaN;
      if (at >= from && at <= to) lines.push({ at, text: `sentinel-${n + 1}: ${text}` });
    }
  }
  return lines.sort((a, b) => a.at - b.at).slice(0, most)
    .map(({ at, text }) => `  ${new Date(at).toISOString()} ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`);
}
