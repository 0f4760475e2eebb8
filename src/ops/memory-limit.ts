import { readFileSync } from 'node:fs';

/** cgroup v2, then v1: where a container's memory limit is read. */
const LIMIT_FILES = ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes'];
/** cgroup v1 says "no limit" with a number near 2^63 rather than v2's `max`. */
const UNLIMITED = 2 ** 62;

/** The container's memory limit in bytes, read once at startup; 0 when there is none (or it cannot be read). */
export function memoryLimitBytes(files: readonly string[] = LIMIT_FILES): number {
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch {
      continue;
    }
    const bytes = Number(text);
    return Number.isSafeInteger(bytes) && bytes > 0 && bytes < UNLIMITED ? bytes : 0;
  }
  return 0;
}
