import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { productionLaunch } from '../support/launch.js';
import { until } from '../scale/lab/redis-cluster.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Instance {
  readonly name: string;
  readonly port: number;
  /** The running process; a new one after each start. */
  process(): ChildProcess | undefined;
  /** Starts it (again) and waits until /readyz answers 200. */
  start(): Promise<void>;
  /** SIGTERM (a deploy) or SIGKILL (a lost machine); resolves once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Each time it exited without being stopped: a crash, which no fault excuses. */
  readonly crashes: readonly Crash[];
}

export interface Crash {
  readonly instance: string;
  readonly at: string;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * One instance of the built service, launched as the Dockerfile launches it (its ENV and its CMD's node
 * flags, on this machine's node), on a fixed port so the load balancer finds it again after a restart.
 * Its log lines go to a file of the run's folder, one per instance.
 */
export function instance(name: string, port: number, dir: string, env: Readonly<Record<string, string>>): Instance {
  const launch = productionLaunch();
  const [, ...args] = launch.cmd;
  const log = createWriteStream(join(dir, `${name}.log`), { flags: 'a' });
  let child: ChildProcess | undefined;
  let stopping: ChildProcess | undefined;
  const crashes: Crash[] = [];
  return {
    name,
    port,
    crashes,
    process: () => child,
    async start() {
      child = spawn(process.execPath, args, {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...launch.env, PORT: String(port), HOST: '127.0.0.1', LOG_FORMAT: 'json', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.pipe(log, { end: false });
      child.stderr!.pipe(log, { end: false });
      const started = child;
      started.once('exit', (code, signal) => {
        if (stopping !== started) crashes.push({ instance: name, at: new Date().toISOString(), code, signal });
      });
      await until(`${name} ready`, async () => started.exitCode !== null
        || (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200, 30_000);
      if (started.exitCode !== null) throw new Error(`${name} exited (${started.exitCode}) on starting; see ${join(dir, `${name}.log`)}`);
    },
    async stop(signal = 'SIGTERM') {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      stopping = running;
      running.kill(signal);
      await exited;
    },
  };
}
