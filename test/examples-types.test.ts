import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GENERATED = 'examples/generated';
const SLOW = 60_000;

// The generator arguments of `npm run examples:generate`, without the output file; the first test keeps
// the two in step, so the drift check regenerates exactly as the script does.
const OPENAPI = ['schema/openapi.json', '--default-non-nullable', 'false'];
const TADA = ['generate-output', '-c', 'examples/tsconfig.json'];

/** A package's command-line entry run with this node, from the repository root. */
function run(bin: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, 'node_modules', bin), ...args], { cwd: ROOT, env: { PATH: process.env.PATH } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }));
  });
}

const committed = (file: string) => readFileSync(join(ROOT, GENERATED, file), 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'animal-store-examples-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('examples/generated (run `npm run examples:generate`)', () => {
  it('is what the examples:generate script produces', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts['examples:generate']).toBe(
      `openapi-typescript ${OPENAPI.join(' ')} -o ${GENERATED}/openapi.d.ts && gql.tada ${TADA.join(' ')}`,
    );
  });

  it('openapi.d.ts matches what openapi-typescript generates from schema/openapi.json', async () => {
    const out = join(scratch, 'openapi.d.ts');
    const result = await run('openapi-typescript/bin/cli.js', [...OPENAPI, '-o', out]);
    expect(result.code, result.output).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(committed('openapi.d.ts'));
  }, SLOW);

  it('graphql-env.d.ts matches what gql.tada generates from schema/schema.graphql', async () => {
    const out = join(scratch, 'graphql-env.d.ts');
    const result = await run('gql.tada/bin/cli.js', [...TADA, '-o', out]);
    expect(result.code, result.output).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(committed('graphql-env.d.ts'));
  }, SLOW);
});

describe('examples (run `npm run examples:check`)', () => {
  it('type-check with plain tsc against the generated types', async () => {
    const result = await run('typescript/bin/tsc', ['--noEmit', '-p', 'examples/tsconfig.json']);
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  }, SLOW);
});
