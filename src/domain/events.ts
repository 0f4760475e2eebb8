import type { AppError } from '../errors.js';
import type { OrderRecord } from './order.js';
import type { PetRecord } from './pet.js';

export const CHANGE_KINDS = ['CREATED', 'UPDATED', 'DELETED'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** What each change is called in the outbox, the event feed and webhooks. */
export const EVENT_TYPES = ['pet.created', 'pet.updated', 'pet.deleted', 'order.created', 'order.updated'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The types each subscription hears. */
export const PET_EVENT_TYPES: readonly EventType[] = EVENT_TYPES.filter((type) => type.startsWith('pet.'));
export const ORDER_EVENT_TYPES: readonly EventType[] = EVENT_TYPES.filter((type) => type.startsWith('order.'));

/**
 * A committed change as the outbox recorded it: its id (ascending in commit order as every reader sees
 * it), its type and time, and the record after it (as it was, when deleted).
 */
export interface ChangeEvent {
  readonly id: number;
  readonly type: EventType;
  /** Milliseconds since the epoch. */
  readonly occurredAt: number;
  readonly kind: ChangeKind;
  readonly pet?: PetRecord;
  readonly order?: OrderRecord;
}
export type PetEvent = ChangeEvent & { readonly pet: PetRecord };
export type OrderEvent = ChangeEvent & { readonly order: OrderRecord };

/**
 * A stream of changes, listening from the moment it is made (not from its first read). When its reader
 * falls too far behind, its last item is a STREAM_OVERFLOW error instead of the changes it dropped.
 */
export interface LiveStream<T> extends AsyncIterableIterator<T | AppError> {
  /**
   * Settles once every change committed from now on, on any instance, will reach this stream; rejects
   * when the stream cannot start where it was asked to (EVENTS_EXPIRED, or an id never given out).
   */
  readonly ready: Promise<void>;
}

export interface StreamOptions {
  /** Ends the stream: the subscriber went away, or its key was revoked. */
  readonly signal?: AbortSignal;
  /** Start after this event: the recorded ones first, in id order, then the live ones. */
  readonly after?: number;
}

/** Every committed change (its event is in the outbox), told to every subscriber on every instance. */
export interface ChangeEvents {
  /** A change was committed: every instance reads its event now rather than at its next poll. */
  changed(): void;
  /** Each ends when the subscriber returns it, when `signal` aborts, or when the service shuts down. */
  pets(options?: StreamOptions): LiveStream<PetEvent>;
  orders(options?: StreamOptions): LiveStream<OrderEvent>;
}

/** The recorded events, as far as every one of them is known (no lower id can still appear). */
export interface EventFeed {
  /** Oldest first; EVENTS_EXPIRED when events after `after` were pruned, BAD_REQUEST for an id never given out. */
  page(query: { readonly after?: number; readonly limit: number; readonly types?: readonly EventType[] }): Promise<ChangeEvent[]>;
}
