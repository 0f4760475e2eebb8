import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const churn = (mode: 'keep' | 'drop') =>
  spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', 'test/support/sqlite-churn.ts', mode], { cwd: ROOT, encoding: 'utf8' });

// nodejs/node#65446: from 24.19, a better-sqlite3 object freed by the collector can abort the process.
const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
const abortsOnDroppedObjects = major === 24 && minor >= 19;

describe('embedded databases and statements', () => {
  it('are kept for the life of the process, so no Node version aborts on collecting them', { timeout: 60_000 }, () => {
    const kept = churn('keep');
    expect(kept.stderr).not.toContain('Assertion failed');
    expect(kept.status).toBe(0);
  });

  it.runIf(abortsOnDroppedObjects)(`abort this Node (${process.version}) when dropped instead: the test above can fail`, { timeout: 60_000 }, () => {
    const dropped = churn('drop');
    expect(dropped.stderr).toContain('RemoveEnvironmentCleanupHook');
    expect(dropped.signal).toBe('SIGABRT');
  });
});
