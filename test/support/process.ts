import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { freshStore, type Store } from './backend.js';
import { productionLaunch } from './launch.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServerProcess {
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first output line matching, or rejects after `ms`. */
  waitFor(pattern: RegExp, ms?: number): Promise<string>;
  readonly exited: Promise<number | null>;
}

/** Where a spawned server runs from, and what else its node is given. */
export interface SpawnOptions {
  /** The checkout whose build it runs. @default this one */
  readonly cwd?: string;
  /** Flags put before the launch's own (an `--import` that watches its loading). @default [] */
  readonly nodeArgs?: readonly string[];
}

/**
 * Runs the built service as operators run it (`npm start`): its own process, launched as the Dockerfile
 * launches it (its bundle, its ENV and its CMD's node flags, on this machine's node), settings from the environment.
 */
export function spawnServer(env: Record<string, string>, { cwd = ROOT, nodeArgs = [] }: SpawnOptions = {}): ServerProcess {
  const launch = productionLaunch();
  const [, ...args] = launch.cmd;
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    cwd,
    // No drain window unless a test asks for one: a stopped server closes at once, as before the window.
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...launch.env, PORT: '0', HOST: '127.0.0.1', DRAIN_SECONDS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiters = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const wake of waiters) wake();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => { resolve(code); for (const wake of waiters) wake(); }));

  return {
    child,
    exited,
    output: () => output,
    waitFor(pattern, ms = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = output.split('\n').find((l) => pattern.test(l));
          if (line !== undefined) { done(); resolve(line); } else if (child.exitCode !== null) { done(); reject(new Error(`exited before ${pattern}:\n${output}`)); }
        };
        const timer = setTimeout(() => { done(); reject(new Error(`no ${pattern} within ${ms} ms:\n${output}`)); }, ms);
        const done = () => { clearTimeout(timer); waiters.delete(check); };
        waiters.add(check);
        check();
      });
    },
  };
}

/** The URL a spawned server logged it listens on. */
export async function listeningUrl(server: ServerProcess): Promise<string> {
  const line = await server.waitFor(/"msg":"Animal Store API listening/);
  return JSON.parse(line).url as string;
}

/** Spawns servers, each on a fresh store, and kills them and drops their stores after each test. */
export function spawnedServers() {
  const running: { server: ServerProcess; store?: Store }[] = [];
  afterEach(async () => {
    for (const { server, store } of running.splice(0)) {
      server.child.kill('SIGKILL');
      await server.exited;
      await store?.drop();
    }
  });
  return {
    async start(env: Record<string, string> = {}, options?: SpawnOptions) {
      const store = await freshStore();
      const server = spawnServer({ ...store.env, ...env }, options);
      running.push({ server, store });
      return { server, store };
    },
    /** Another server on a store an earlier one started with (which drops it). */
    restart(store: Store, env: Record<string, string> = {}) {
      const server = spawnServer({ ...store.env, ...env });
      running.unshift({ server });
      return server;
    },
  };
}
