import type { Clock } from '../clock.js';
import type { ApiKeyStore } from '../db/api-keys.js';
import { log } from '../log.js';

/** How often each instance writes what it counted: a deprecated field may be called on every request. */
const FLUSH_EVERY_MS = 10_000;

/**
 * Each key's calls of deprecated fields, counted in memory and added to the key's record every ten
 * seconds (and at shutdown): one UPDATE per key that called, whatever the rate, never on a request's path.
 * Additions commute, so every instance writes its own. A write that fails is kept for the next; an
 * instance killed outright loses at most its last ten seconds.
 */
export function deprecatedCallLog(keys: ApiKeyStore, clock: Clock) {
  let pending = new Map<number, { calls: number; lastAt: number }>();

  async function flush(): Promise<void> {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    for (const [id, { calls, lastAt }] of batch) {
      try {
        await keys.addDeprecatedCalls(id, calls, new Date(Math.floor(lastAt / 1000) * 1000));
      } catch (error) {
        log.warn({ err: error, keyId: id }, 'could not record calls of deprecated fields; trying again later');
        const since = pending.get(id);
        pending.set(id, { calls: calls + (since?.calls ?? 0), lastAt: Math.max(lastAt, since?.lastAt ?? 0) });
      }
    }
  }

  const timer = setInterval(() => { void flush(); }, FLUSH_EVERY_MS);
  timer.unref();
  return {
    record(keyId: number): void {
      const entry = pending.get(keyId);
      const now = clock.now();
      if (entry) {
        entry.calls += 1;
        entry.lastAt = now;
      } else {
        pending.set(keyId, { calls: 1, lastAt: now });
      }
    },
    flush,
    async close(): Promise<void> {
      clearInterval(timer);
      await flush();
    },
  };
}

export type DeprecatedCallLog = ReturnType<typeof deprecatedCallLog>;
