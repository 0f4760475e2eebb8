import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { productionEntry } from '../support/launch.js';

/**
 * Built instances of the service for a benchmark: `start(env)` runs `main` on a free loopback port with
 * the given settings and resolves with its URL once it listens; `children` holds them, for stopping.
 */
export function builtInstances(main: string) {
  const children: ChildProcess[] = [];
  const start = (env: Record<string, string>) => new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [main], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_FORMAT: 'json', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
      const found = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (found) { child.stdout!.removeAllListeners('data').resume(); resolve(found[1]!); }
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  return { children, start };
}

/**
 * The entry point of a build's dist/ (another worktree's, to compare): the one production runs, or tsc's
 * src/main.js in a build from before the bundle.
 */
export function builtEntry(dist = 'dist'): string {
  const entry = join(dist, relative('dist', productionEntry()));
  return existsSync(entry) ? entry : join(dist, 'src/main.js');
}

/** A CLI script (keys.js, migrate.js) of the build an entry point is of: tsc's, in dist/src/cli/. */
export function builtCli(entry: string, name: string): string {
  const dir = dirname(resolve(entry));
  return resolve(dir, basename(dir) === 'bundle' ? '../src/cli' : 'cli', name);
}
