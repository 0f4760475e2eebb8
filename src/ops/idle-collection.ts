import type { Step } from '../pipeline/pipeline.js';

/** How long without a request counts as idle. */
const IDLE_MS = 10_000;

type CollectGarbage = () => void;

export interface IdleCollection extends Step {
  stop(): void;
}

/**
 * Once traffic stops, one full garbage collection gives back to the system what a busy spell grew the
 * heap to: V8 would keep most of it, so an idle instance would go on holding its peak. At most one
 * collection per idle spell, never while requests come. It needs node's --expose-gc, which the production
 * launch (Dockerfile, npm start) passes; without it this does nothing.
 */
export function useIdleCollection(collect = (globalThis as { gc?: CollectGarbage }).gc, idleMs = IDLE_MS): IdleCollection {
  let served = false;
  let collected = true;
  const timer = collect && setInterval(() => {
    if (served) {
      served = false;
      collected = false;
    } else if (!collected) {
      collected = true;
      collect();
    }
  }, idleMs);
  timer?.unref();
  return {
    onRequest() { served = true; },
    stop() { if (timer) clearInterval(timer); },
  };
}
