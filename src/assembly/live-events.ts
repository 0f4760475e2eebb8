import { systemClock, type Clock } from '../clock.js';
import type { Closers } from '../closers.js';
import type { Config } from '../config.js';
import { touchedBy } from '../cache/reads.js';
import type { ResponseCache } from '../cache/response-cache.js';
import { pruneFences } from '../db/fence.js';
import { outboxReads, pruneEvents } from '../db/outbox.js';
import { byRecord } from '../domain/events.js';
import { createChangeEvents } from '../events/change-events.js';
import { createEventHistory, eventFeed } from '../events/event-history.js';
import { createOutboxReader } from '../events/outbox-reader.js';
import { resumableEvents } from '../events/resumable.js';
import { log } from '../log.js';
import { outboxMetrics, subscriptionMetrics } from '../ops/event-metrics.js';
import type { Metrics } from '../ops/metrics.js';
import type { Stores } from './stores.js';

/** How often each instance reads the outbox without a wake-up: the longest a lost wake-up delays an event. */
const OUTBOX_POLL_MS = 1_000;
/**
 * With the response cache on: four reads a second (an indexed range that is mostly empty), so that an
 * instance that missed a wake-up still drops a changed answer within a quarter of a second.
 */
const CACHED_OUTBOX_POLL_MS = 250;
/** How often each instance prunes old events and idempotency fences (a delete finds nothing twice). */
const PRUNE_MS = 60_000;

/**
 * How long the outbox reader waits for a missing id: a missing id is given up on once its transaction
 * must have ended (every change records its event last, so the gap between an event's insert and its
 * commit is the commit, bounded by the statement timeout).
 */
export const outboxHorizonMs = (config: Config) => (config.database.statementTimeoutSeconds + 1) * 2_000;

/**
 * Live events from the outbox (on the primary): read when woken (a change here, or a wake-up from another
 * instance through Redis), and every second whatever happens; the feed's history over it; and the
 * pruning of what the outbox and the fences keep past their time.
 */
export async function startLiveEvents(
  config: Config, { redis, dataSource, statements, replicas }: Stores, metrics: Metrics, clock: Clock, closers: Closers, cache?: ResponseCache,
) {
  // Read at a scrape, once `events` exists.
  const overflowed = subscriptionMetrics(metrics, () => events.open());
  const events = createChangeEvents(redis && { connection: redis, prefix: config.redisPrefix }, config.streamQueueEvents, overflowed);
  closers.push('the event streams', () => events.close());
  const outboxQueries = outboxReads(dataSource);
  const outbox = createOutboxReader({
    // With replicas and the cache, each read also asks the primary's position: a miss waits for it on a replica.
    source: replicas && cache ? outboxQueries : { read: outboxQueries.read, last: outboxQueries.last },
    deliver: (event) => byRecord(event, { pet: events.pet, order: events.order }),
    // The cache drops what an event changed as soon as it is read, without waiting for a lower id still missing.
    read: cache && ((event) => cache.heard(event.id, touchedBy(event))),
    horizonMs: outboxHorizonMs(config),
    clock: systemClock,
  });
  // Woken, it reads only for this instance's open streams and cached answers; the poll below keeps its place either way.
  events.onWake(() => { if (events.listening() || (cache?.size ?? 0) > 0) void outbox.poll(); });
  await outbox.poll();
  const polling = setInterval(() => { void outbox.poll(); }, cache ? CACHED_OUTBOX_POLL_MS : OUTBOX_POLL_MS);
  polling.unref();
  closers.push('the outbox poll', () => clearInterval(polling));
  const pruned = outboxMetrics(metrics, {
    lag: async () => (await outboxQueries.last()) - (outbox.position ?? 0),
    unsettled: () => outbox.missing,
  });
  const history = createEventHistory({ pages: outboxQueries.page, reader: outbox, retentionHours: config.eventRetentionHours });

  const prune = () => Promise.all([
    pruneEvents(statements, clock.now() - config.eventRetentionHours * 3_600_000).then((count) => pruned.inc(count)),
    pruneFences(statements, clock.now()),
  ]).catch((error: unknown) => log.warn({ err: error }, 'old events or idempotency fences could not be pruned; trying again in a minute'));
  const pruning = setInterval(() => { void prune(); }, PRUNE_MS);
  pruning.unref();
  closers.push('the pruning', () => clearInterval(pruning));
  void prune();

  return { events, outbox, outboxQueries, history, feed: eventFeed(history), streams: resumableEvents(events, history) };
}

export type LiveEvents = Awaited<ReturnType<typeof startLiveEvents>>;
