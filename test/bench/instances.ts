import { spawn, type ChildProcess } from 'node:child_process';

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
