import type { OrderRecord } from '../domain/order.js';
import type { PetRecord } from '../domain/pet.js';
import { builder } from './builder.js';

/** The object types, named before they are described: Pet's fields use Order and Order's use Pet. */
export const Pet = builder.objectRef<PetRecord>('Pet');
export const Order = builder.objectRef<OrderRecord>('Order');
