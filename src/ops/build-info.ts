import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NAME = 'animal-store-gateway';

/**
 * The service's version, from its package.json: found above this module, wherever the build put it
 * (dist/src/ops, dist/bundle/chunks, src/ops under tsx). Read once, at startup.
 */
export function buildInfo(): { version: string } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 5; up++, dir = dirname(dir)) {
    try {
      const found = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (found.name === NAME && found.version) return { version: found.version };
    } catch {
      // No package.json here, or not ours: one folder up.
    }
  }
  return { version: 'unknown' };
}
