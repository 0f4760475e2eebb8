import type { AppError } from '../errors.js';
import type { OrderRecord } from './order.js';
import type { PetRecord } from './pet.js';

export const CHANGE_KINDS = ['CREATED', 'UPDATED', 'DELETED'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export interface PetEvent { readonly kind: ChangeKind; readonly pet: PetRecord }
export interface OrderEvent { readonly kind: ChangeKind; readonly order: OrderRecord }

/**
 * A stream of changes, listening from the moment it is made (not from its first read). When its reader
 * falls too far behind, its last item is a STREAM_OVERFLOW error instead of the changes it dropped.
 */
export interface LiveStream<T> extends AsyncIterableIterator<T | AppError> {
  /**
   * Settles once every change published from now on, on any instance, reaches this stream: at once in
   * process; with Redis, once Redis has confirmed the subscription to its channel (or refused it: warned).
   */
  readonly ready: Promise<void>;
}

/** Every committed change, told to every subscriber on every instance. */
export interface ChangeEvents {
  pet(event: PetEvent): void;
  order(event: OrderEvent): void;
  /** Each ends when the subscriber returns it, when `signal` aborts, or when the service shuts down. */
  pets(signal?: AbortSignal): LiveStream<PetEvent>;
  orders(signal?: AbortSignal): LiveStream<OrderEvent>;
}
