import type { AppError } from '../errors.js';
import type { OrderRecord } from './order.js';
import type { PetRecord } from './pet.js';

export const CHANGE_KINDS = ['CREATED', 'UPDATED', 'DELETED'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/**
 * The one table of what events carry: for each kind of record, what its changes are called in the
 * outbox, the event feed and webhooks, and the scope a key needs to hear them (a webhook sends the
 * record; scopes.ts's scopeToHear holds each to the list of scopes). A new kind of record is a row here; every switch over them then fails to compile until it
 * is handled.
 */
export const EVENT_RECORDS = {
  pet: { types: ['pet.created', 'pet.updated', 'pet.deleted'], scope: 'pets:read' },
  order: { types: ['order.created', 'order.updated'], scope: 'orders:read' },
} as const satisfies Record<string, { readonly types: readonly `${string}.${string}`[]; readonly scope: `${string}:read` }>;
export type EventRecordKind = keyof typeof EVENT_RECORDS;

export type PetEventType = (typeof EVENT_RECORDS.pet.types)[number];
export type OrderEventType = (typeof EVENT_RECORDS.order.types)[number];
export type EventType = PetEventType | OrderEventType;

/** Every event type, in the table's order. */
export const EVENT_TYPES: readonly EventType[] = Object.values(EVENT_RECORDS).flatMap((record) => record.types);
/** The types each subscription hears. */
export const PET_EVENT_TYPES: readonly EventType[] = EVENT_RECORDS.pet.types;
export const ORDER_EVENT_TYPES: readonly EventType[] = EVENT_RECORDS.order.types;

export const isEventType = (value: unknown): value is EventType => typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);

const RECORD_OF = new Map<EventType, EventRecordKind>(
  (Object.keys(EVENT_RECORDS) as EventRecordKind[]).flatMap((kind) => EVENT_RECORDS[kind].types.map((type) => [type, kind] as const)),
);
/** Which kind of record an event type carries. */
export const recordOf = (type: EventType): EventRecordKind => RECORD_OF.get(type)!;

interface Committed {
  readonly id: number;
  /** Milliseconds since the epoch. */
  readonly occurredAt: number;
  readonly kind: ChangeKind;
}
/** A pet's change: the pet after it (as it was, when deleted). */
export interface PetEvent extends Committed { readonly type: PetEventType; readonly pet: PetRecord }
/** An order's change: the order after it. */
export interface OrderEvent extends Committed { readonly type: OrderEventType; readonly order: OrderRecord }

/** The event of each kind of record: a kind added to the table and not here is `never`, and fails to compile where used. */
export type EventOf<K extends EventRecordKind> = K extends 'pet' ? PetEvent : K extends 'order' ? OrderEvent : never;

/**
 * A committed change as the outbox recorded it: its id (ascending in commit order as every reader sees
 * it), its type and time, and the record after it. Its type tells which record it carries.
 */
export type ChangeEvent = EventOf<EventRecordKind>;

/**
 * What to do with an event, by the kind of record it carries: one handler for each kind in the table, so
 * a new kind fails to compile at every place that has not said what to do with it.
 */
export function byRecord<R>(event: ChangeEvent, handle: { readonly [K in EventRecordKind]: (event: EventOf<K>) => R }): R {
  return (handle[recordOf(event.type)] as (event: ChangeEvent) => R)(event);
}

/** What an event of type `T` records beside its id, type and time: its kind and its record. */
export type EventPayload<T extends EventType> = Omit<T extends PetEventType ? PetEvent : T extends OrderEventType ? OrderEvent : never, 'id' | 'type' | 'occurredAt'>;
/** An event to record: its type, and the payload that type carries (a pet for a pet's type, and so on). */
export type NewEvent = { [T in EventType]: { readonly type: T; readonly payload: EventPayload<T> } }[EventType];


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
