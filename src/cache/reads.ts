import { byRecord, type ChangeEvent } from '../domain/events.js';

/**
 * What an answer read, as the events that change it name it: pets by id, orders by id, and the orders of
 * a pet (by the pet's id). A span is inclusive at both ends; a single record is a span of one.
 */
export type ReadKind = 'pet' | 'order' | 'ordersOfPet';

export interface Read {
  readonly kind: ReadKind;
  readonly from: number;
  readonly to: number;
}

/** What a change touches: each event names the records it changed. */
export interface Touch {
  readonly kind: ReadKind;
  readonly id: number;
}

/** What a change to a pet touches: the pet. */
export const petTouches = (pet: { readonly id: number }): Touch[] => [{ kind: 'pet', id: pet.id }];
/** What a change to an order touches: the order, and its pet's list of orders. */
export const orderTouches = (order: { readonly id: number; readonly petId: number }): Touch[] => [{ kind: 'order', id: order.id }, { kind: 'ordersOfPet', id: order.petId }];

/** The records an event changed. */
export const touchedBy = (event: ChangeEvent): Touch[] => byRecord<Touch[]>(event, {
  pet: ({ pet }) => petTouches(pet),
  order: ({ order }) => orderTouches(order),
});

export const touches = (read: Read, touch: Touch): boolean => read.kind === touch.kind && read.from <= touch.id && touch.id <= read.to;

/**
 * A page of a list in id order: it read the ids after `after` up to its last row when it filled its
 * `limit` (a record above that row cannot change it), or every id above when it did not (a new record
 * would join it).
 */
export function pageRead(kind: ReadKind, after: number | undefined, limit: number, rows: readonly { id: number }[]): Read {
  return { kind, from: (after ?? 0) + 1, to: rows.length >= limit ? rows.at(-1)!.id : Number.MAX_SAFE_INTEGER };
}
