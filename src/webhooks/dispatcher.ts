import type { Clock } from '../clock.js';
import type { ClaimedDelivery, EndpointTarget, WebhookStore } from '../db/webhooks.js';
import { DISABLE_AFTER_MS, RETRY_SCHEDULE_MS } from '../domain/webhooks.js';
import { log } from '../log.js';
import { oneAtATime } from '../one-at-a-time.js';
import { send, type SendOptions } from './sender.js';

/** Deliveries claimed per query; a full batch is followed by the next at once. */
const BATCH = 16;
/** How often each instance looks for due deliveries (and fans out new events) without being woken. */
const POLL_MS = 1_000;

export type Outcome = 'delivered' | 'retry' | 'failed' | 'dropped';

export interface DispatcherOptions extends SendOptions {
  readonly store: WebhookStore;
  /** The outbox's settled position, read now: the fan-out goes up to it. */
  readonly settled: () => Promise<number>;
  /** Whether a key may still receive: not revoked, not expired. */
  readonly keyOpen: (keyId: number) => Promise<boolean>;
  readonly clock: Clock;
  readonly random?: () => number;
  readonly counted?: (outcome: Outcome) => void;
}

/**
 * Webhook delivery, on every instance: turns new events into deliveries (one instance at a time), then
 * claims due deliveries with a lease (rows locked by one instance, skipped by the others) and sends them.
 * A 2xx within the timeout acknowledges; anything else is retried on RETRY_SCHEDULE_MS with ±20% jitter,
 * then the delivery fails. An instance that dies mid-delivery leaves its claims to the others when their
 * lease (the timeout and 20 s) lapses: at least once, never lost.
 */
export function createDispatcher(options: DispatcherOptions) {
  const { store, settled, keyOpen, clock, random = Math.random, counted = () => undefined } = options;
  const leaseMs = options.timeoutMs + 20_000;
  let closed = false;
  let endpointsExist = true;
  let checkedAt = -Infinity;

  const retryAt = (attemptsBefore: number) => {
    const wait = RETRY_SCHEDULE_MS[attemptsBefore];
    return wait === undefined ? null : clock.now() + Math.round(wait * (0.8 + 0.4 * random()));
  };

  async function deliver(delivery: ClaimedDelivery, endpoint: EndpointTarget | undefined): Promise<void> {
    if (!endpoint?.enabled || !(await keyOpen(endpoint.keyId))) {
      await store.dropped(delivery, endpoint ? 'not sent: the endpoint is disabled, or its key no longer valid' : 'not sent: the endpoint is gone');
      counted('dropped');
      return;
    }
    const attempt = await send(endpoint, delivery, options);
    if (attempt.error === null) {
      await store.delivered(delivery, attempt);
      counted('delivered');
      return;
    }
    const next = retryAt(delivery.attempts);
    const disabled = await store.undelivered(delivery, attempt, next, DISABLE_AFTER_MS);
    counted(next === null ? 'failed' : 'retry');
    if (disabled) log.warn({ endpointId: endpoint.id }, 'a webhook endpoint that failed every delivery for days was disabled');
  }

  async function runOnce(): Promise<void> {
    // Whether there is anything to fan out to is asked again every few seconds (or when an endpoint
    // changed here), not on every wake-up.
    if (performance.now() - checkedAt > 5_000) {
      endpointsExist = await store.anyEnabled();
      checkedAt = performance.now();
    }
    if (endpointsExist) {
      const upTo = await settled();
      while (await store.fanOut(upTo, keyOpen) > 0 && !closed) { /* a full batch: the next at once */ }
    }
    for (;;) {
      const claimed = await store.claim(BATCH, leaseMs);
      if (claimed.length === 0) return;
      const endpoints = new Map((await store.targets([...new Set(claimed.map((d) => d.endpointId))])).map((e) => [e.id, e]));
      await Promise.all(claimed.map((delivery) => deliver(delivery, endpoints.get(delivery.endpointId))));
      if (claimed.length < BATCH || closed) return;
    }
  }

  const run = oneAtATime(runOnce, (error) => log.warn({ err: error }, 'webhooks could not be delivered just now; trying again shortly'), () => closed);
  const timer = setInterval(() => { void run(); }, POLL_MS);
  timer.unref();

  return {
    /** Fans out and sends now (a change was committed here, a delivery made due). */
    run,
    /** Whether a change should wake it: some endpoint is enabled (as last asked). */
    wanted: () => endpointsExist,
    /** An endpoint was made or changed here (or a delivery made due): the next run asks whether any is enabled. */
    endpointsChanged() {
      checkedAt = -Infinity;
      void run();
    },
    async close() {
      clearInterval(timer);
      closed = true;
      // The run under way, if any, ends (its sends are bounded by the timeout); none starts after it.
      await run.idle();
    },
  };
}
