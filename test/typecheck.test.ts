import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

// The service's build checks src/ only; this checks the tests, the system run and the benches too, and
// the type-level assertions tests make with `@ts-expect-error` (a compile error expected, and there).
it('the whole project type-checks (`npm run typecheck`)', async () => {
  const result = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(process.execPath, [join(ROOT, 'node_modules', 'typescript/bin/tsc'), '--noEmit', '-p', 'tsconfig.json'], { cwd: ROOT, env: { PATH: process.env.PATH } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }));
  });
  expect(result.output).toBe('');
  expect(result.code).toBe(0);
}, 120_000);
