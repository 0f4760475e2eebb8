import type { OrderRecord } from './order.js';
import type { PetRecord } from './pet.js';

export const CHANGE_KINDS = ['CREATED', 'UPDATED', 'DELETED'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export interface PetEvent { readonly kind: ChangeKind; readonly pet: PetRecord }
export interface OrderEvent { readonly kind: ChangeKind; readonly order: OrderRecord }

/** Every committed change, told to every subscriber on every instance. */
export interface ChangeEvents {
  pet(event: PetEvent): void;
  order(event: OrderEvent): void;
  /** Each ends when the subscriber returns it, when `signal` aborts, or when the service shuts down. */
  pets(signal?: AbortSignal): AsyncIterableIterator<PetEvent>;
  orders(signal?: AbortSignal): AsyncIterableIterator<OrderEvent>;
}
