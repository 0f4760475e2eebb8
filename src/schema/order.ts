import { orderNotFound, type OrderRecord, type OrderStatus } from '../domain/order.js';
import type { OrderChange as Changed } from '../domain/stores.js';
import { builder, type Context } from './builder.js';
import { CACHEABLE, GRAPHQL_ONLY, needs } from './extensions.js';
import { NodeRef } from './node-interface.js';
import { connectionField, CURSOR_DESCRIPTION, limitArgument, listResolver, PAGED_BY_LIMIT, type PageFetch } from './lists.js';
import { Order, Pet } from './refs.js';
import { statusEnum } from './status-enum.js';

/** The order: its status, the record, what places one and what moves one on, and the fields that do it. */

const OrderStatusEnum = statusEnum<OrderStatus>('OrderStatus', 'Where an order stands: placed → approved → delivered; placed or approved → cancelled.', {
  placed: 'Placed; its animal is reserved (`pending`).',
  approved: 'Approved by the store; its animal stays reserved.',
  delivered: 'Delivered: the order is complete and its animal `sold`. Final.',
  cancelled: 'Cancelled; its animal is `available` again. Final.',
});

Order.implement({
  description: 'An order for one animal of the store.',
  interfaces: [NodeRef],
  fields: (t) => ({
    id: t.expose('id', { type: 'SafeInt', description: 'Unique identifier, assigned by the service.' }),
    petId: t.expose('petId', { type: 'SafeInt', description: 'The animal ordered.' }),
    status: t.expose('status', { type: OrderStatusEnum, description: 'Where the order stands.' }),
    complete: t.exposeBoolean('complete', { description: 'True once the order is delivered.' }),
    placedAt: t.expose('placedAt', { type: 'DateTime', description: 'When the order was placed, set by the service.' }),
    pet: t.field({
      type: Pet,
      description: 'The animal ordered, as it is now (GraphQL only).',
      extensions: { ...GRAPHQL_ONLY, ...needs('pets:read') },
      resolve: async (order, _args, { loaders }) => {
        const pet = await loaders.pet.load(order.petId);
        // An ordered pet cannot be deleted (the foreign key keeps it).
        if (!pet) throw new Error(`Order ${order.id} refers to pet ${order.petId}, which does not exist`);
        return pet;
      },
    }),
  }),
});

/** Both the list and the connection read the same keyset pages. */
const fetchOrders: PageFetch<OrderRecord, OrderStatus> = ({ orders }, query) => orders.list(query);

builder.queryField('orders', (t) =>
  t.field({
    type: [Order],
    description: 'List orders in ascending `id` order, optionally filtered by status.',
    extensions: { ...needs('orders:read'), ...PAGED_BY_LIMIT, ...CACHEABLE },
    args: {
      limit: t.arg.int(limitArgument('orders')),
      status: t.arg({ type: OrderStatusEnum, description: 'Only orders with this status. Omitted: no filter.' }),
      cursor: t.arg({ type: 'Cursor', description: CURSOR_DESCRIPTION }),
    },
    resolve: listResolver('orders', fetchOrders),
  }),
);

connectionField({
  field: 'ordersConnection', node: Order, list: 'orders', what: 'orders', statusEnum: OrderStatusEnum,
  fetch: fetchOrders, scope: 'orders:read',
});

builder.queryField('order', (t) =>
  t.field({
    type: Order,
    nullable: true,
    description: 'Fetch one order by its identifier.',
    extensions: { ...needs('orders:read'), ...CACHEABLE },
    args: { orderId: t.arg({ type: 'SafeInt', required: true, description: 'The identifier of the order.' }) },
    resolve: async (_root, { orderId }, { orders }) => {
      const order = await orders.get(orderId);
      if (!order) throw orderNotFound(orderId);
      return order;
    },
  }),
);

const NewOrder = builder.inputType('NewOrder', {
  description: 'An order to place, for an animal that is `available`. The service assigns its `id` and `placedAt`.',
  fields: (t) => ({
    petId: t.field({ type: 'SafeInt', required: true, description: 'The animal to order.' }),
  }),
});

const OrderChange = builder.inputType('OrderChange', {
  description: 'The next status of an order: placed → approved → delivered; placed or approved → cancelled.',
  fields: (t) => ({
    status: t.field({ type: OrderStatusEnum, required: true, description: 'The status to move the order to.' }),
  }),
});

/** A committed change: its events (the order's and its pet's) are in the outbox; every instance is told to read them. */
function tell({ events }: Context, { order }: Changed) {
  events.changed();
  return order;
}

builder.mutationField('placeOrder', (t) =>
  t.field({
    type: Order,
    description: 'Order an available animal: it becomes `pending`, in the same transaction.',
    extensions: needs('orders:write'),
    args: { input: t.arg({ type: NewOrder, required: true, description: 'The order to place.' }) },
    resolve: async (_root, { input }, context) => tell(context, await context.orders.place(input)),
  }),
);

builder.mutationField('updateOrder', (t) =>
  t.field({
    type: Order,
    description: 'Move an order on: its animal follows in the same transaction (`sold` when delivered, '
      + '`available` when cancelled). A move the order\'s states do not allow is 409 CONFLICT.',
    extensions: needs('orders:write'),
    args: {
      orderId: t.arg({ type: 'SafeInt', required: true, description: 'The identifier of the order.' }),
      input: t.arg({ type: OrderChange, required: true, description: 'The status to move the order to.' }),
    },
    resolve: async (_root, { orderId, input }, context) => tell(context, await context.orders.update(orderId, input.status)),
  }),
);
