import { filter } from 'graphql-yoga';
import { byRecord, CHANGE_KINDS, type ChangeEvent, type OrderEvent, type PetEvent } from '../domain/events.js';
import { pageSize } from '../domain/ids.js';
import { isAppError, type AppError } from '../errors.js';
import { builder, type Context } from './builder.js';
import { needs } from './extensions.js';
import { limitArgument, PAGED_BY_LIMIT } from './lists.js';
import { Order, Pet } from './refs.js';

/** Every change, recorded with it: the subscriptions, the event feed (and its REST route) and webhooks. */

const ChangeKindEnum = builder.enumType('ChangeKind', {
  description: 'What happened to a record.',
  values: Object.fromEntries(CHANGE_KINDS.map((k) => [k, { value: k }])) as Record<(typeof CHANGE_KINDS)[number], { value: (typeof CHANGE_KINDS)[number] }>,
});

const ID_DESCRIPTION = 'The event\'s id: ids grow in the order every reader sees events. Resume after it with `after` (a subscription\'s, or the feed\'s).';
const KIND_DESCRIPTION = 'What happened to the record.';
const occurredAt = (event: ChangeEvent) => new Date(event.occurredAt).toISOString();

const PetEventType = builder.objectRef<PetEvent>('PetEvent').implement({
  description: 'An animal changed: what happened, and the record after it (as it was, when deleted).',
  fields: (t) => ({
    id: t.expose('id', { type: 'SafeInt', description: ID_DESCRIPTION }),
    occurredAt: t.field({ type: 'DateTime', description: 'When the change was made.', resolve: occurredAt }),
    kind: t.expose('kind', { type: ChangeKindEnum, description: KIND_DESCRIPTION }),
    pet: t.expose('pet', { type: Pet, description: 'The animal after the change (as it was, when deleted).' }),
  }),
});

const OrderEventType = builder.objectRef<OrderEvent>('OrderEvent').implement({
  description: 'An order changed: what happened, and the record after it.',
  fields: (t) => ({
    id: t.expose('id', { type: 'SafeInt', description: ID_DESCRIPTION }),
    occurredAt: t.field({ type: 'DateTime', description: 'When the change was made.', resolve: occurredAt }),
    kind: t.expose('kind', { type: ChangeKindEnum, description: KIND_DESCRIPTION }),
    order: t.expose('order', { type: Order, description: 'The order after the change.' }),
  }),
});

const EventRef = builder.objectRef<ChangeEvent>('Event').implement({
  description: 'A change, as the event feed and webhooks tell it: its id, type and time, and the record after it.',
  fields: (t) => ({
    id: t.expose('id', { type: 'SafeInt', description: 'Ids grow in the order every reader sees events: the feed\'s `after`, a subscription\'s `after`.' }),
    type: t.expose('type', { type: 'EventType', description: 'What happened, to which kind of record: `pet.created`, `order.updated`, ...' }),
    occurredAt: t.field({ type: 'DateTime', description: 'When the change was made.', resolve: occurredAt }),
    pet: t.field({ type: Pet, nullable: true, description: 'The animal after the change (as it was, when deleted); null for an order\'s event.', resolve: (e) => byRecord(e, { pet: ({ pet }) => pet, order: () => null }) }),
    order: t.field({ type: Order, nullable: true, description: 'The order after the change; null for an animal\'s event.', resolve: (e) => byRecord(e, { pet: () => null, order: ({ order }) => order }) }),
  }),
});

/**
 * The event a subscription sends: its id is kept for the transport (SSE's `id` line). A stream's error
 * (it fell behind, or could not be read) is its last event: sent as that event's error, then the stream
 * completes.
 */
const delivered = <T extends ChangeEvent>(event: T | AppError, _args: unknown, { stream }: Context): T => {
  if (isAppError(event)) throw event;
  if (stream) stream.lastId = event.id;
  return event;
};

const AFTER_DESCRIPTION = 'Start after this event (the `id` of the last one you heard): the events recorded since, in order, then the live ones. '
  + 'Over SSE, a Last-Event-ID header (an EventSource sends it when it reconnects) takes its place. '
  + 'An id whose successors are no longer kept is refused with EVENTS_EXPIRED. Omitted: from now on.';

builder.subscriptionField('petChanged', (t) =>
  t.field({
    type: PetEventType,
    description: 'Every change to an animal, as it is committed, on any instance. Omit `petId` for every animal.',
    extensions: needs('pets:read'),
    args: {
      petId: t.arg({ type: 'SafeInt', description: 'Only this animal.' }),
      after: t.arg({ type: 'SafeInt', description: AFTER_DESCRIPTION }),
    },
    // Answered once the stream listens on every instance: a client told 200 misses no change after it.
    subscribe: async (_root, { petId, after }, { events, signal, stream }) => {
      const changes = events.pets({ signal, after: stream?.resumeAfter ?? after ?? undefined });
      await changes.ready;
      return petId == null ? changes : filter((e: PetEvent | AppError) => isAppError(e) || e.pet.id === petId)(changes);
    },
    resolve: delivered,
  }),
);

builder.subscriptionField('orderChanged', (t) =>
  t.field({
    type: OrderEventType,
    description: 'Every change to an order, as it is committed, on any instance. Omit `orderId` for every order.',
    extensions: needs('orders:read'),
    args: {
      orderId: t.arg({ type: 'SafeInt', description: 'Only this order.' }),
      after: t.arg({ type: 'SafeInt', description: AFTER_DESCRIPTION }),
    },
    subscribe: async (_root, { orderId, after }, { events, signal, stream }) => {
      const changes = events.orders({ signal, after: stream?.resumeAfter ?? after ?? undefined });
      await changes.ready;
      return orderId == null ? changes : filter((e: OrderEvent | AppError) => isAppError(e) || e.order.id === orderId)(changes);
    },
    resolve: delivered,
  }),
);

builder.queryField('events', (t) =>
  t.field({
    type: [EventRef],
    description: 'The recorded changes, oldest first: to follow them, ask again with `after` set to the last event\'s id. '
      + 'A page holds only events no earlier event can still join, so going on after its last id misses none. '
      + 'Events are kept for a limited time (EVENT_RETENTION_HOURS); an `after` older than that is refused with EVENTS_EXPIRED.',
    // The feed carries both kinds of record.
    extensions: { ...needs('pets:read', 'orders:read'), ...PAGED_BY_LIMIT },
    args: {
      after: t.arg({ type: 'SafeInt', description: 'Only events after this one. Omitted: from the oldest kept.' }),
      limit: t.arg.int(limitArgument('events')),
      type: t.arg({ type: 'EventType', description: 'Only events of this type. Omitted: every type.' }),
    },
    resolve: async (_root, { after, limit, type }, { feed, reply }) => {
      const size = pageSize(limit);
      const events = await feed.page({ after: after ?? undefined, limit: size + 1, types: type ? [type] : undefined });
      const page = events.length > size ? events.slice(0, size) : events;
      if (events.length > size && reply) reply.next = { after: String(page.at(-1)!.id) };
      return page;
    },
  }),
);

