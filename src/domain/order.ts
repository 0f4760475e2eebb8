import { appError } from '../errors.js';
import type { PetStatus } from './pet.js';

export const ORDER_STATUSES = ['placed', 'approved', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export interface OrderRecord {
  id: number;
  petId: number;
  status: OrderStatus;
  /** True once delivered. */
  complete: boolean;
  /** RFC 3339, UTC, set by the service. */
  placedAt: string;
}

export interface NewOrderInput {
  petId: number;
}

/**
 * The order's state machine, and what its pet becomes in each state: the one table both surfaces and
 * the database code read. An order is placed on an available pet, which is then pending.
 */
export const TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  placed: ['approved', 'cancelled'],
  approved: ['delivered', 'cancelled'],
  delivered: [],
  cancelled: [],
};

export const PET_STATUS_OF_ORDER: Readonly<Record<OrderStatus, PetStatus>> = {
  placed: 'pending',
  approved: 'pending',
  delivered: 'sold',
  cancelled: 'available',
};

/** The pet status an order needs to be placed. */
export const ORDERABLE: PetStatus = 'available';


export const isComplete = (status: OrderStatus) => status === 'delivered';

export function checkTransition(orderId: number, from: OrderStatus, to: OrderStatus): void {
  if (TRANSITIONS[from].includes(to)) return;
  const allowed = TRANSITIONS[from];
  throw appError('CONFLICT', `Order ${orderId} cannot go from "${from}" to "${to}"; `
    + (allowed.length ? `from "${from}" it can go to ${allowed.map((s) => `"${s}"`).join(' or ')}` : `"${from}" is final`));
}

export const notOrderable = (petId: number, status: PetStatus) =>
  appError('CONFLICT', `Pet ${petId} is ${status}, not ${ORDERABLE}: it cannot be ordered`);
export const orderNotFound = (orderId: number) => appError('NOT_FOUND', `Order ${orderId} not found`);
