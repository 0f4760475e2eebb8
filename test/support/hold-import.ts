import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The line a held process writes to its stderr, naming the import it waits on. */
export const HELD = /^held at import (\S+)$/;

export interface HeldImport {
  /** Node flags for spawnServer: a module hook that holds the first import matching, before it is resolved. */
  readonly nodeArgs: readonly string[];
  /** Lets the process go on: it resolves the import only now, against the files there now. */
  release(): void;
}

/**
 * The wait, in either kind of hook. The line goes to the file descriptor itself: a hook off the main
 * thread writes through it, which is waiting on the hook and would pass nothing on.
 */
const waiting = (sleep: string) => `
  if (!done && new RegExp(hold.pattern).test(specifier)) {
    done = true;
    writeSync(2, 'held at import ' + specifier + '\\n');
    while (!existsSync(hold.release)) ${sleep};
  }
  return next(specifier, context);`;

const header = (hold: object) => `import { existsSync, writeSync } from 'node:fs';
const hold = ${JSON.stringify(hold)};
let done = false;`;

const moduleUrl = (source: string) => `data:text/javascript,${encodeURIComponent(source)}`;

/**
 * Holds a spawned server at one import of its startup, as a slow start would, until the test lets it
 * go: whatever a build does meanwhile lands between the process reading its entry and importing the
 * rest. In-thread hooks where Node has them (22.15 and later; module.register, the only kind before,
 * is deprecated in 26), else the off-thread ones. The word to go on is a file written in `dir`.
 */
export function holdImport(pattern: RegExp, dir: string): HeldImport {
  const release = join(dir, `release-${process.pid}-${Date.now()}`);
  const hold = { pattern: pattern.source, release };
  const offThread = `${header(hold)}
export async function resolve(specifier, context, next) {${waiting('await new Promise((go) => setTimeout(go, 20))')}
}`;
  const preload = `import module from 'node:module';
${header(hold)}
const pause = new Int32Array(new SharedArrayBuffer(4));
if (module.registerHooks) module.registerHooks({ resolve(specifier, context, next) {${waiting('Atomics.wait(pause, 0, 0, 20)')}
} });
else module.register(${JSON.stringify(moduleUrl(offThread))});`;
  return {
    nodeArgs: ['--import', moduleUrl(preload)],
    release: () => writeFileSync(release, ''),
  };
}
