import { limitArgument } from '../domain/ids.js';
import { orderNotFound, type OrderRecord, type OrderStatus } from '../domain/order.js';
import { builder } from './builder.js';
import { GRAPHQL_ONLY, Order, Pet } from './refs.js';
import { connectionField, CURSOR_DESCRIPTION, listResolver, type PageFetch } from './lists.js';
import { statusEnum } from './status-enum.js';

export const OrderStatusEnum = statusEnum<OrderStatus>('OrderStatus', 'Where an order stands: placed → approved → delivered; placed or approved → cancelled.', {
  placed: 'Placed; its animal is reserved (`pending`).',
  approved: 'Approved by the store; its animal stays reserved.',
  delivered: 'Delivered: the order is complete and its animal `sold`. Final.',
  cancelled: 'Cancelled; its animal is `available` again. Final.',
});

Order.implement({
  description: 'An order for one animal of the store.',
  fields: (t) => ({
    id: t.expose('id', { type: 'SafeInt', description: 'Unique identifier, assigned by the service.' }),
    petId: t.expose('petId', { type: 'SafeInt', description: 'The animal ordered.' }),
    status: t.expose('status', { type: OrderStatusEnum, description: 'Where the order stands.' }),
    complete: t.exposeBoolean('complete', { description: 'True once the order is delivered.' }),
    placedAt: t.expose('placedAt', { type: 'DateTime', description: 'When the order was placed, set by the service.' }),
    pet: t.field({
      type: Pet,
      description: 'The animal ordered, as it is now (GraphQL only).',
      extensions: GRAPHQL_ONLY,
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
  fetch: fetchOrders,
});

builder.queryField('order', (t) =>
  t.field({
    type: Order,
    nullable: true,
    description: 'Fetch one order by its identifier.',
    args: { orderId: t.arg({ type: 'SafeInt', required: true, description: 'The identifier of the order.' }) },
    resolve: async (_root, { orderId }, { orders }) => {
      const order = await orders.get(orderId);
      if (!order) throw orderNotFound(orderId);
      return order;
    },
  }),
);
