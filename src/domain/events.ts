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
  /** Settles once every change committed from now on, on any instance, will reach this stream. */
  readonly ready: Promise<void>;
}

/** Every committed change (its event is in the outbox), told to every subscriber on every instance. */
export interface ChangeEvents {
  /** A change was committed: every instance reads its event now rather than at its next poll. */
  changed(): void;
  /** Each ends when the subscriber returns it, when `signal` aborts, or when the service shuts down. */
  pets(signal?: AbortSignal): LiveStream<PetEvent>;
  orders(signal?: AbortSignal): LiveStream<OrderEvent>;
}
