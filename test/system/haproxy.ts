import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { until } from '../scale/lab/redis-cluster.js';

export interface LoadBalancer {
  /** The one address clients use. */
  readonly url: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * HAProxy from Debian's packages in front of the instances, as an operator would run it: round robin,
 * each instance checked on /readyz every 500 ms (out after 2 failures, back after 2 passes), and a
 * request that finds an instance gone retried once on another (`redispatch`): a draining instance
 * answers 503 on /readyz before it stops accepting, so its requests finish and new ones go elsewhere.
 */
export async function loadBalancer(dir: string, port: number, instances: readonly { name: string; port: number }[]): Promise<LoadBalancer> {
  const file = join(dir, 'haproxy.cfg');
  await writeFile(file, [
    'global', '  maxconn 4096', '',
    'defaults', '  mode http', '  timeout connect 2s', '  timeout client 60s', '  timeout server 60s',
    // SSE streams stay open: no idle cut while a stream is quiet between heartbeats.
    '  timeout tunnel 1h', '  option redispatch', '  retries 1', '',
    'frontend api', `  bind 127.0.0.1:${port}`, '  default_backend instances', '',
    // Which instance answered: the run's samples keep it (an answer without it is HAProxy's own).
    'backend instances', '  balance roundrobin', '  option httpchk GET /readyz', '  http-check expect status 200',
    '  http-response set-header x-served-by %[srv_name]',
    ...instances.map(({ name, port: at }) => `  server ${name} 127.0.0.1:${at} check inter 500 fall 2 rise 2`),
    '',
  ].join('\n'));
  // -db: in the foreground, so the run owns it and stops it by its PID.
  const child = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
  // Its warnings (a server taken out or put back, and why) go to haproxy.log in the run's folder, each
  // line stamped with the time, as the instances' lines are: the run's log excerpts read both.
  const warnings = createWriteStream(join(dir, 'haproxy.log'));
  createInterface({ input: child.stderr! }).on('line', (line) => warnings.write(`${new Date().toISOString()} ${line}\n`));
  const url = `http://127.0.0.1:${port}`;
  // One that cannot start (not installed, a bad configuration) fails the deployment, which then stops
  // what it had started, instead of an unhandled 'error' ending the run with everything left running.
  const failed = new Promise<never>((_, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`HAProxy exited (${code}) on starting; see ${join(dir, 'haproxy.log')}`)));
  });
  failed.catch(() => {});
  await Promise.race([until('HAProxy', async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.ok === true), failed]);
  return {
    url,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
