import { describe, expect, it } from 'vitest';
import { deliverySlots } from '../../src/webhooks/slots.js';

const due = (...endpointIds: number[]) => endpointIds.map((endpointId, id) => ({ id, endpointId }));

describe('deliverySlots', () => {
  it('gives an endpoint at most its slots, and all endpoints together at most the total', () => {
    const slots = deliverySlots(5, 2);
    const picked = slots.pick(due(1, 1, 1, 2, 3, 3, 3, 4));
    expect(picked.map((d) => d.endpointId)).toEqual([1, 1, 2, 3, 3]);
    for (const { endpointId } of picked) slots.take(endpointId);
    expect(slots.room).toBe(0);
    expect(slots.pick(due(4))).toEqual([]);
    expect(slots.full().sort()).toEqual([1, 3]);
  });

  it('serves an endpoint with nothing in flight before one already sent to, whatever their order', () => {
    const slots = deliverySlots(2, 2);
    slots.take(1);
    expect(slots.pick(due(1, 1, 2)).map((d) => d.endpointId)).toEqual([2]);
    expect(slots.pick(due(1, 1, 2, 3)).map((d) => d.endpointId)).toEqual([2]);
  });

  it('holds an endpoint whose last attempt failed to one request, until one succeeds', () => {
    const slots = deliverySlots(10, 3);
    slots.take(7);
    slots.release(7, true);
    expect(slots.pick(due(7, 7, 7)).map((d) => d.endpointId)).toEqual([7]);
    slots.take(7);
    expect(slots.full()).toEqual([7]);
    // Not sent (the endpoint was gone or disabled): nothing learnt about it.
    slots.release(7, undefined);
    expect(slots.pick(due(7, 7))).toHaveLength(1);
    slots.take(7);
    slots.release(7, false);
    expect(slots.pick(due(7, 7, 7, 7))).toHaveLength(3);
    expect(slots.used).toBe(0);
    expect(slots.full()).toEqual([]);
  });
});
