import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Prometheus's server, from Debian's `prometheus` package (the one that ships promtool). */
export const PROMETHEUS = process.env.PROMETHEUS_PATH ?? '/usr/bin/prometheus';

const freePort = () => new Promise<number>((done) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    server.close(() => done(port));
  });
});

export interface QueryResult {
  readonly status: 'success' | 'error';
  readonly error?: string;
  readonly data?: { resultType: string; result: { metric: Record<string, string>; value?: [number, string] }[] };
}

/**
 * A Prometheus of the test's own, on a loopback port, scraping `target` (host:port) every second as job
 * `animal-store` and evaluating `ruleFiles` every second, its data in a temporary folder; stopped by its PID.
 */
export async function ownPrometheus(target: string, ruleFiles: readonly string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
  const port = await freePort();
  writeFileSync(join(dir, 'prometheus.yml'), [
    'global: { scrape_interval: 1s, evaluation_interval: 1s }',
    `rule_files: [${ruleFiles.map((file) => JSON.stringify(resolve(file))).join(', ')}]`,
    'scrape_configs:',
    '  - job_name: animal-store',
    `    static_configs: [{ targets: ["${target}"] }]`,
  ].join('\n'));
  const child = spawn(PROMETHEUS, [
    `--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => { log += chunk.toString(); });
  const exited = new Promise((done) => child.once('exit', done));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`prometheus exited: ${log}`);
      if (await fetch(`${url}/-/ready`).then((res) => res.ok, () => false)) break;
      if (i > 300) throw new Error(`prometheus was not ready in 30 s: ${log}`);
      await new Promise((done) => setTimeout(done, 100));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    async query(expr: string): Promise<QueryResult> {
      return (await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: expr })}`)).json() as Promise<QueryResult>;
    },
    async rules(): Promise<{ name: string; health: string; lastError?: string }[]> {
      const body = await (await fetch(`${url}/api/v1/rules`)).json() as { data: { groups: { rules: { name: string; health: string; lastError?: string }[] }[] } };
      return body.data.groups.flatMap((group) => group.rules);
    },
    stop,
  };
}
