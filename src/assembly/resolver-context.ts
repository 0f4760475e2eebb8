import { identityOf } from '../auth/use-auth.js';
import { RecordedOrders, RecordedPets, RecordedWebhooks, recordedFeed } from '../cache/recorded-stores.js';
import type { Clock } from '../clock.js';
import { notingEventIds } from '../db/event-ids.js';
import { fenced } from '../db/fence.js';
import type { Cursors } from '../domain/cursor.js';
import { secretsShownIn } from '../idempotency/use-idempotency.js';
import { quotaOf } from '../limits/use-rate-limit.js';
import type { ServerContext } from '../pipeline/context.js';
import type { Context } from '../schema/builder.js';
import { Loaders } from '../schema/loaders.js';
import type { LiveEvents } from './live-events.js';
import type { Stores } from './stores.js';
import type { Webhooks } from './webhooks.js';

/**
 * One resolver context per request, on both surfaces; what it reads of the request is set by then. With
 * read replicas, a key's request has a session of its own (reads as of its last write), and stores on it;
 * a request holding an Idempotency-Key fences each of its writes, so a retry never writes twice; with the
 * response cache on, its stores note what it reads and whether it writes, and the context notes whether a
 * resolver asked who the caller is (its key's id: then the answer is made for that caller alone).
 */
export function resolverContext(stores: Stores, live: LiveEvents, webhooks: Webhooks, cursors: Cursors, clock: Clock) {
  const { statements, petsOn, ordersOn, pets, orders } = stores;
  const { streams, feed } = live;
  return (request: ServerContext): Context => {
    const held = request.idempotency;
    const sql = held ? fenced(request.session ?? statements, held.id, () => clock.now()) : request.session;
    const { recording } = request;
    // With the response cache on, what the resolvers read and write is noted: what the answer depends on,
    // and (a request that is not a cacheable read) the outbox ids its writes were given.
    const on = recording && request.cached === undefined ? notingEventIds(sql ?? statements, recording.committed) : sql;
    const p = recording ? new RecordedPets(on ? petsOn(on) : pets, recording) : sql ? petsOn(sql) : pets;
    const o = recording ? new RecordedOrders(on ? ordersOn(on) : orders, recording) : sql ? ordersOn(sql) : orders;
    const key = request.caller?.kind === 'key' ? request.caller.key : undefined;
    return {
      pets: p, orders: o, events: streams, cursors, loaders: new Loaders(p, o), stream: request.streamPlace,
      feed: recording ? recordedFeed(feed, recording) : feed,
      webhooks: recording ? new RecordedWebhooks(webhooks.admin, recording) : webhooks.admin,
      keyId() {
        if (recording) recording.caller = identityOf(request.caller);
        return key?.id;
      },
      scopes: key?.scopes,
      requestId: request.requestId, signal: request.streamSignal, reply: request.reply,
      quota() {
        if (recording) recording.unannounced = 'the quota';
        return quotaOf(request);
      },
      showsSecret: secretsShownIn(request),
    };
  };
}
