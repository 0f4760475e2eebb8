import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingPackages, NEEDED } from '../system/prerequisites.js';

/** A folder holding executables of these names (and a non-executable file of `plain`'s name). */
function folderWith(programs: readonly string[], plain?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'prerequisites-'));
  for (const program of programs) {
    writeFileSync(join(dir, program), '#!/bin/sh\n');
    chmodSync(join(dir, program), 0o755);
  }
  if (plain) writeFileSync(join(dir, plain), '');
  return dir;
}

describe('the system run\'s prerequisites', () => {
  it('names each missing package once, whichever of its programs is missing', () => {
    expect(missingPackages(folderWith([]))).toEqual(['haproxy', 'mariadb-server', 'redis-server']);
    expect(missingPackages(folderWith(['haproxy', 'mariadbd', 'redis-server']))).toEqual(['mariadb-server']);
  });

  it('finds programs in any folder of the path, and not a file that cannot be run', () => {
    const some = folderWith(['haproxy', 'mariadbd'], 'redis-server');
    const rest = folderWith(['mariadb-install-db']);
    expect(missingPackages(`${some}:${rest}`)).toEqual(['redis-server']);
    expect(missingPackages(`${some}:${rest}:${folderWith(['redis-server'])}`)).toEqual([]);
    expect(NEEDED.map(([program]) => program)).toContain('haproxy');
  });
});
