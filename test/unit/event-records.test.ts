import { describe, expect, it } from 'vitest';
import { recordEvents } from '../../src/db/outbox.js';
import { byRecord, EVENT_RECORDS, EVENT_TYPES, isEventType, ORDER_EVENT_TYPES, PET_EVENT_TYPES, recordOf } from '../../src/domain/events.js';
import { missingToHear, scopeToHear } from '../../src/domain/scopes.js';

const pet = { id: 1, name: 'Rex', categoryId: 1, status: 'available' as const };
const order = { id: 2, petId: 1, status: 'placed' as const, complete: false, placedAt: '2026-11-27T00:00:00.000Z' };

// The one table of event records: every type belongs to one record, heard with that record's read scope.
describe('the table of event records', () => {
  it('gives every type one record, its stream and its scope', () => {
    expect(EVENT_TYPES).toEqual(['pet.created', 'pet.updated', 'pet.deleted', 'order.created', 'order.updated']);
    expect(PET_EVENT_TYPES.every((type) => recordOf(type) === 'pet')).toBe(true);
    expect(ORDER_EVENT_TYPES.every((type) => recordOf(type) === 'order')).toBe(true);
    expect(EVENT_TYPES.map((type) => [type, scopeToHear(type)])).toEqual([
      ['pet.created', 'pets:read'], ['pet.updated', 'pets:read'], ['pet.deleted', 'pets:read'],
      ['order.created', 'orders:read'], ['order.updated', 'orders:read'],
    ]);
    expect(missingToHear([], new Set(['pets:read']))).toEqual(ORDER_EVENT_TYPES.map((type) => ({ type, scope: EVENT_RECORDS.order.scope })));
  });

  it('knows its types and no other', () => {
    expect(EVENT_TYPES.every(isEventType)).toBe(true);
    for (const other of ['pet', 'pet.sold', 'PET.CREATED', '', 7, null, undefined, {}]) expect(isEventType(other)).toBe(false);
  });

  it('hands an event to the handler of the record its type names', () => {
    const handle = { pet: (e: { pet: unknown }) => ['pet', e.pet], order: (e: { order: unknown }) => ['order', e.order] };
    expect(byRecord({ id: 1, type: 'pet.updated', occurredAt: 0, kind: 'UPDATED', pet }, handle)).toEqual(['pet', pet]);
    expect(byRecord({ id: 2, type: 'order.created', occurredAt: 0, kind: 'CREATED', order }, handle)).toEqual(['order', order]);
    // @ts-expect-error every kind of record needs its handler
    byRecord({ id: 1, type: 'pet.updated', occurredAt: 0, kind: 'UPDATED', pet }, { pet: () => 1 });
  });

  it('records each event with the payload its type carries', () => {
    const [sql, params] = recordEvents(5, [
      { type: 'order.created', payload: { kind: 'CREATED', order } },
      { type: 'pet.updated', payload: { kind: 'UPDATED', pet } },
    ]);
    expect(sql).toBe('INSERT INTO events (type, occurred_at, payload) VALUES (?, ?, ?), (?, ?, ?)');
    expect(params).toEqual(['order.created', 5, JSON.stringify({ kind: 'CREATED', order }), 'pet.updated', 5, JSON.stringify({ kind: 'UPDATED', pet })]);
    // @ts-expect-error a pet's event carries a pet, not an order: the compiler refuses it
    recordEvents(5, [{ type: 'pet.created', payload: { kind: 'CREATED', order } }]);
  });
});
