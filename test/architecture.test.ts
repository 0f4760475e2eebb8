import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

it('keeps the layers of .dependency-cruiser.cjs: imports only point down, no circle, nothing from test/', async () => {
  const run = promisify(execFile)(process.execPath, [
    'node_modules/dependency-cruiser/bin/dependency-cruise.mjs', 'src', 'migrations', '--config', '.dependency-cruiser.cjs', '--output-type', 'err',
  ], { cwd: ROOT });
  // A violation exits non-zero, its report on stdout: shown whole when it fails.
  const { stdout } = await run.catch((failure: { stdout: string }) => ({ stdout: failure.stdout }));
  expect(stdout).toMatch(/no dependency violations found/);
}, 60_000);
