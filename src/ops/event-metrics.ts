import { Counter, Histogram } from 'prom-client';
import { LATENCY_BUCKETS, scrapedGauge, type Metrics } from './metrics.js';
import { onePerScrape } from './one-per-scrape.js';

/** The outbox as this instance reads it: how far behind it is, what it waits for, and what was pruned. */
export function outboxMetrics(metrics: Metrics, { lag, unsettled }: { lag(): Promise<number>; unsettled(): number }) {
  scrapedGauge(metrics, 'outbox_lag_events', 'Events in the outbox this instance has not handed on yet (its newest id less the reader\'s position)', lag);
  scrapedGauge(metrics, 'outbox_unsettled_ids', 'Ids above the reader\'s position still awaited (a transaction not yet committed, or rolled back)', unsettled);
  return new Counter({
    name: metrics.name('outbox_pruned_events_total'), help: 'Events this instance pruned from the outbox past EVENT_RETENTION_HOURS', registers: [metrics.registry],
  });
}

/** Live subscriptions on this instance (server-sent events and WebSockets alike), and those that fell behind. */
export function subscriptionMetrics(metrics: Metrics, open: () => number) {
  scrapedGauge(metrics, 'subscriptions_open', 'Subscription streams open on this instance (SSE and WebSocket)', open);
  const overflows = new Counter({
    name: metrics.name('subscription_overflows_total'), help: 'Subscriptions ended with STREAM_OVERFLOW: their client fell more than STREAM_QUEUE_EVENTS behind',
    registers: [metrics.registry],
  });
  return () => overflows.inc();
}

interface PendingDeliveries {
  readonly count: number;
  /** When the oldest was made (Unix ms), or null with none waiting. */
  readonly oldestAt: number | null;
}

/** Webhook deliveries: each attempt's outcome and time, and the queue waiting with the age of its oldest. */
export function webhookMetrics(metrics: Metrics, pending: () => Promise<PendingDeliveries>, now: () => number) {
  const registers = [metrics.registry];
  // One query per scrape serves both gauges.
  const read = onePerScrape(pending);
  scrapedGauge(metrics, 'webhook_pending_deliveries', 'Webhook deliveries waiting for an attempt (new ones and retries)', () => read().then((found) => found.count));
  scrapedGauge(metrics, 'webhook_oldest_pending_age_seconds', 'How long the oldest delivery still waiting has waited; 0 with none waiting',
    () => read().then(({ oldestAt }) => (oldestAt === null ? 0 : Math.max(0, (now() - oldestAt) / 1000))));
  const attempts = new Counter({
    name: metrics.name('webhook_deliveries_total'), help: 'Webhook delivery attempts by outcome (delivered, retry, failed, dropped)', labelNames: ['outcome'], registers,
  });
  const duration = new Histogram({
    name: metrics.name('webhook_delivery_duration_seconds'), help: 'Time a webhook endpoint took to answer an attempt (or to fail it), by outcome',
    labelNames: ['outcome'], registers, buckets: LATENCY_BUCKETS,
  });
  for (const outcome of ['delivered', 'retry', 'failed', 'dropped']) attempts.inc({ outcome }, 0);
  return (outcome: string, durationMs?: number) => {
    attempts.inc({ outcome });
    if (durationMs !== undefined) duration.observe({ outcome }, durationMs / 1000);
  };
}
