import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * vitest globalSetup of the contract projects: the tests that start the service or its CLI as a process
 * run the build, as `npm start` and `npm run keys` do, instead of compiling the sources at every start
 * (a second or two each): `npm run build`'s two steps, tsc (incremental: a build that is up to date costs
 * a moment) and the server's bundle (about two seconds).
 */
export default function build(): void {
  execFileSync(process.execPath, [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: ROOT, stdio: 'inherit',
  });
  execFileSync(process.execPath, ['dist/scripts/bundle.js'], { cwd: ROOT, stdio: 'inherit' });
}
