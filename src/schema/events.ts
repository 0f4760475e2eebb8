import { filter } from 'graphql-yoga';
import { CHANGE_KINDS, type OrderEvent, type PetEvent } from '../domain/events.js';
import { isAppError, type AppError } from '../errors.js';
import { builder } from './builder.js';
import { Order, Pet } from './refs.js';

const ChangeKindEnum = builder.enumType('ChangeKind', {
  description: 'What happened to a record.',
  values: Object.fromEntries(CHANGE_KINDS.map((k) => [k, { value: k }])) as Record<(typeof CHANGE_KINDS)[number], { value: (typeof CHANGE_KINDS)[number] }>,
});

const PetEventType = builder.objectRef<PetEvent>('PetEvent').implement({
  description: 'An animal changed: what happened, and the record after it (as it was, when deleted).',
  fields: (t) => ({
    kind: t.expose('kind', { type: ChangeKindEnum }),
    pet: t.expose('pet', { type: Pet }),
  }),
});

const OrderEventType = builder.objectRef<OrderEvent>('OrderEvent').implement({
  description: 'An order changed: what happened, and the record after it.',
  fields: (t) => ({
    kind: t.expose('kind', { type: ChangeKindEnum }),
    order: t.expose('order', { type: Order }),
  }),
});

/** A stream's overflow error is its last event: sent as that event's error, then the stream completes. */
const delivered = <T>(event: T | AppError): T => {
  if (isAppError(event)) throw event;
  return event;
};

builder.subscriptionField('petChanged', (t) =>
  t.field({
    type: PetEventType,
    description: 'Every change to an animal, as it is committed, on any instance. Omit `petId` for every animal.',
    args: { petId: t.arg({ type: 'SafeInt', description: 'Only this animal.' }) },
    // Answered once the stream listens on every instance: a client told 200 misses no change after it.
    subscribe: async (_root, { petId }, { events, signal }) => {
      const changes = events.pets(signal);
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
    args: { orderId: t.arg({ type: 'SafeInt', description: 'Only this order.' }) },
    subscribe: async (_root, { orderId }, { events, signal }) => {
      const changes = events.orders(signal);
      await changes.ready;
      return orderId == null ? changes : filter((e: OrderEvent | AppError) => isAppError(e) || e.order.id === orderId)(changes);
    },
    resolve: delivered,
  }),
);
