import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryLimitBytes } from '../../src/ops/memory-limit.js';

describe('the container memory limit the metrics report', () => {
  const dir = mkdtempSync(join(tmpdir(), 'memory-limit-'));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('reads cgroup v2, then v1, in bytes', () => {
    expect(memoryLimitBytes([file('v2', '268435456\n')])).toBe(268_435_456);
    expect(memoryLimitBytes([join(dir, 'absent'), file('v1', '536870912\n')])).toBe(536_870_912);
  });

  it('is 0 with no limit: v2\'s "max", v1\'s near-2^63, no file, or nonsense', () => {
    expect(memoryLimitBytes([file('max', 'max\n')])).toBe(0);
    expect(memoryLimitBytes([file('huge', '9223372036854771712\n')])).toBe(0);
    expect(memoryLimitBytes([join(dir, 'none')])).toBe(0);
    expect(memoryLimitBytes([file('junk', 'lots')])).toBe(0);
  });
});
