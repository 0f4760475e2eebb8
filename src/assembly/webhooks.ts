import type { Clock } from '../clock.js';
import type { Closers } from '../closers.js';
import type { Config } from '../config.js';
import { webhookDeliveries } from '../db/webhook-deliveries.js';
import { webhookEndpoints } from '../db/webhook-endpoints.js';
import { keyStanding } from '../domain/key-standing.js';
import { webhookMetrics } from '../ops/event-metrics.js';
import type { Metrics } from '../ops/metrics.js';
import { webhookAdmin } from '../webhooks/admin.js';
import { createDispatcher } from '../webhooks/dispatcher.js';
import type { LiveEvents } from './live-events.js';
import type { Stores } from './stores.js';

/**
 * Webhooks: every instance fans new events out to endpoints and sends the deliveries due, on a change
 * here (when any endpoint is enabled) and every second; the owners manage their endpoints through the API.
 */
export function startWebhooks(config: Config, { dataSource, keys }: Stores, live: LiveEvents, metrics: Metrics, clock: Clock, closers: Closers) {
  const queue = webhookDeliveries(dataSource, clock);
  const endpoints = webhookEndpoints(dataSource, clock);
  const attempted = webhookMetrics(metrics, () => queue.pending(), () => clock.now());
  const dispatcher = createDispatcher({
    store: queue,
    settled: () => live.history.settled(),
    // A delivery goes out only while its endpoint's key is open.
    keyOpen: async (keyId) => {
      const key = await keys.findById(keyId);
      return key !== null && keyStanding(key, clock.now()) === 'open';
    },
    clock,
    timeoutMs: config.webhooks.timeoutMs, allowPrivate: config.webhooks.allowPrivate,
    concurrency: config.webhooks.concurrency, perEndpoint: config.webhooks.perEndpoint, counted: attempted,
  });
  closers.push('the webhook dispatcher', () => dispatcher.close());
  live.events.onWake(() => { if (dispatcher.wanted()) void dispatcher.run(); });
  return { endpoints, dispatcher, admin: webhookAdmin(endpoints, config.webhooks, clock, () => dispatcher.endpointsChanged()) };
}

export type Webhooks = ReturnType<typeof startWebhooks>;
