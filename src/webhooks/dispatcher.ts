import type { Clock } from '../clock.js';
import type { WebhookDeliveries } from '../db/webhook-deliveries.js';
import type { ClaimedDelivery, EndpointTarget } from '../db/webhook-rows.js';
import { DISABLE_AFTER_MS, RETRY_SCHEDULE_MS } from '../domain/webhooks.js';
import { log } from '../log.js';
import { oneAtATime } from '../one-at-a-time.js';
import { send, type SendOptions } from './sender.js';
import { deliverySlots } from './slots.js';

/** How often each instance looks for due deliveries (and fans out new events) without being woken. */
const POLL_MS = 1_000;

export type Outcome = 'delivered' | 'retry' | 'failed' | 'dropped';

export interface DispatcherOptions extends SendOptions {
  readonly store: WebhookDeliveries;
  /** The outbox's settled position, read now: the fan-out goes up to it. */
  readonly settled: () => Promise<number>;
  /** Whether a key may still receive: not revoked, not expired. */
  readonly keyOpen: (keyId: number) => Promise<boolean>;
  readonly clock: Clock;
  readonly random?: () => number;
  /** Hears each attempt's outcome, and how long the endpoint took for one that was sent (the metrics). */
  readonly counted?: (outcome: Outcome, durationMs?: number) => void;
  /** Requests in flight at once on this instance, to every endpoint together. */
  readonly concurrency: number;
  /** Requests in flight at once to one endpoint on this instance (one while its last attempt here failed). */
  readonly perEndpoint: number;
}

/**
 * Webhook delivery, on every instance: turns new events into deliveries (one instance at a time), then
 * claims due deliveries with a lease (rows locked by one instance, skipped by the others) and sends them.
 * Each delivery runs on its own, in a slot (see deliverySlots): a claim takes only what has a free slot,
 * and a send that ends frees its slot and claims again, so a silent endpoint holds only its own slots
 * while every other endpoint's deliveries go on. A 2xx within the timeout acknowledges; anything else is
 * retried on RETRY_SCHEDULE_MS with ±20% jitter, then the delivery fails. An instance that dies
 * mid-delivery leaves its claims to the others when their lease (the timeout and 20 s) lapses: at least
 * once, never lost.
 */
export function createDispatcher(options: DispatcherOptions) {
  const { store, settled, keyOpen, clock, random = Math.random, counted = () => undefined } = options;
  const leaseMs = options.timeoutMs + 20_000;
  let closed = false;
  let endpointsExist = true;
  let checkedAt = -Infinity;
  const slots = deliverySlots(options.concurrency, options.perEndpoint);
  const sending = new Set<Promise<void>>();

  const retryAt = (attemptsBefore: number) => {
    const wait = RETRY_SCHEDULE_MS[attemptsBefore];
    return wait === undefined ? null : clock.now() + Math.round(wait * (0.8 + 0.4 * random()));
  };

  /** Sends one claimed delivery and records how it went; resolves with whether the attempt failed (undefined: not sent). */
  async function deliver(delivery: ClaimedDelivery, endpoint: EndpointTarget | undefined): Promise<boolean | undefined> {
    if (!endpoint?.enabled || !(await keyOpen(endpoint.keyId))) {
      await store.dropped(delivery, endpoint ? 'not sent: the endpoint is disabled, or its key no longer valid' : 'not sent: the endpoint is gone');
      counted('dropped');
      return undefined;
    }
    const attempt = await send(endpoint, delivery, options);
    if (attempt.error === null) {
      await store.delivered(delivery, attempt);
      counted('delivered', attempt.durationMs);
      return false;
    }
    const next = retryAt(delivery.attempts);
    const disabled = await store.undelivered(delivery, attempt, next, DISABLE_AFTER_MS);
    counted(next === null ? 'failed' : 'retry', attempt.durationMs);
    if (disabled) log.warn({ endpointId: endpoint.id }, 'a webhook endpoint that failed every delivery for days was disabled');
    return true;
  }

  /** Starts a delivery in its slot, not waited for here; when it ends, its slot is free and the next claim runs. */
  function start(delivery: ClaimedDelivery, endpoint: EndpointTarget | undefined) {
    slots.take(delivery.endpointId);
    let failing: boolean | undefined;
    const done: Promise<void> = deliver(delivery, endpoint).then(
      (failed) => { failing = failed; },
      // Its claim lapses and another attempt follows: the delivery is not lost.
      (error: unknown) => log.warn({ err: error, deliveryId: delivery.id }, 'a webhook delivery could not be recorded; it is sent again when its claim lapses'),
    ).finally(() => {
      slots.release(delivery.endpointId, failing);
      sending.delete(done);
      void claim();
    });
    sending.add(done);
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
    await claim();
  }

  async function claimOnce(): Promise<void> {
    // Each round claims what has a free slot, skipping endpoints with none; a full scan may leave more due
    // behind the deliveries it passed over, so it goes on until the slots or the due deliveries run out.
    while (slots.room > 0 && !closed) {
      const { claimed, more } = await store.claim(leaseMs, { skip: slots.full(), pick: (due) => slots.pick(due) });
      if (claimed.length > 0) {
        const endpoints = new Map((await store.targets([...new Set(claimed.map((d) => d.endpointId))])).map((e) => [e.id, e]));
        for (const delivery of claimed) start(delivery, endpoints.get(delivery.endpointId));
      }
      if (!more || claimed.length === 0) return;
    }
  }

  const warn = (error: unknown) => log.warn({ err: error }, 'webhooks could not be delivered just now; trying again shortly');
  // Claims never overlap one another (each picks by the slots as they stand); a send that ends claims
  // again without fanning out.
  const claim = oneAtATime(claimOnce, warn, () => closed);
  const run = oneAtATime(runOnce, warn, () => closed);
  const timer = setInterval(() => { void run(); }, POLL_MS);
  timer.unref();

  return {
    /** Fans out and sends now (a change was committed here, a delivery made due). */
    run,
    /** Fans out and sends now, then resolves when the sends it started (and any under way) have ended. */
    async settle() {
      checkedAt = -Infinity;
      await run();
      await Promise.all(sending);
    },
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
      // The run under way, if any, ends, and the sends under way (each bounded by the timeout); none starts after.
      await run.idle();
      await claim.idle();
      await Promise.all(sending);
    },
  };
}
