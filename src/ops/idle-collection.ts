import type { Step } from '../pipeline/pipeline.js';

/**
 * How long without a request counts as idle. A forced collection also throws away V8's compiled code and
 * type feedback: the next seconds of load ran at a third of the speed (after 20 s quiet, 883 req/s where
 * a warm list page runs at 2,800). A minute keeps it for instances that are truly idle, not between bursts.
 */
const IDLE_MS = 60_000;

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
