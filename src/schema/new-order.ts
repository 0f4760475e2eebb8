import type { OrderChange as Changed } from '../domain/stores.js';
import { builder } from './builder.js';
import type { Context } from './builder.js';
import { OrderStatusEnum } from './order.js';
import { Order } from './refs.js';

export const NewOrder = builder.inputType('NewOrder', {
  description: 'An order to place, for an animal that is `available`. The service assigns its `id` and `placedAt`.',
  fields: (t) => ({
    petId: t.field({ type: 'SafeInt', required: true, description: 'The animal to order.' }),
  }),
});

export const OrderChange = builder.inputType('OrderChange', {
  description: 'The next status of an order: placed → approved → delivered; placed or approved → cancelled.',
  fields: (t) => ({
    status: t.field({ type: OrderStatusEnum, required: true, description: 'The status to move the order to.' }),
  }),
});

/** Both records of a committed change, told to subscribers. */
function tell({ events }: Context, kind: 'CREATED' | 'UPDATED', { order, pet }: Changed) {
  events.order({ kind, order });
  events.pet({ kind: 'UPDATED', pet });
  return order;
}

builder.mutationField('placeOrder', (t) =>
  t.field({
    type: Order,
    description: 'Order an available animal: it becomes `pending`, in the same transaction.',
    args: { input: t.arg({ type: NewOrder, required: true, description: 'The order to place.' }) },
    resolve: async (_root, { input }, context) => tell(context, 'CREATED', await context.orders.place(input)),
  }),
);

builder.mutationField('updateOrder', (t) =>
  t.field({
    type: Order,
    description: 'Move an order on: its animal follows in the same transaction (`sold` when delivered, '
      + '`available` when cancelled). A move the order\'s states do not allow is 409 CONFLICT.',
    args: {
      orderId: t.arg({ type: 'SafeInt', required: true, description: 'The identifier of the order.' }),
      input: t.arg({ type: OrderChange, required: true, description: 'The status to move the order to.' }),
    },
    resolve: async (_root, { orderId, input }, context) => tell(context, 'UPDATED', await context.orders.update(orderId, input.status)),
  }),
);
