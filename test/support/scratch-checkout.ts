import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What the bundle is built from, and what its server reads at run time (package.json: its version). */
const COPIED = ['src', 'migrations', 'package.json', 'tsconfig.json', 'dist/scripts'];

export interface ScratchCheckout {
  readonly dir: string;
  /** The build's bundle step (dist/scripts/bundle.js, as tsc built it in this checkout): rejects, with its output, if it fails. */
  build(): Promise<void>;
  /** Changes a source file the way an editor saves it: whole, so that a build reading it meanwhile sees one version. */
  edit(path: string, change: (source: string) => string): void;
  remove(): void;
}

/**
 * A copy of this checkout's sources and build script, node_modules linked: a test may edit and rebuild
 * it under the servers it starts from it, as a developer would the real one, which the rest of the run's
 * servers use. tsc's step is left out: the server runs the bundle, which esbuild makes from the sources.
 */
export function scratchCheckout(): ScratchCheckout {
  const dir = mkdtempSync(join(tmpdir(), 'scratch-checkout-'));
  for (const path of COPIED) cpSync(join(ROOT, path), join(dir, path), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  let edits = 0;
  return {
    dir,
    async build() {
      await promisify(execFile)(process.execPath, ['dist/scripts/bundle.js'], { cwd: dir }).catch((failure: Error & { stderr?: string }) => {
        throw new Error(`the build failed: ${failure.stderr || failure.message}`);
      });
    },
    edit(path, change) {
      const file = join(dir, path);
      const saved = `${file}.${process.pid}-${(edits += 1)}.saving`;
      writeFileSync(saved, change(readFileSync(file, 'utf8')));
      renameSync(saved, file);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
