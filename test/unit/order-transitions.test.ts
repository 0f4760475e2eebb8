import { describe, expect, it } from 'vitest';
import {
  checkTransition, isComplete, notOrderable, ORDER_STATUSES, ORDERABLE, orderNotFound, PET_STATUS_OF_ORDER, TRANSITIONS, type OrderStatus,
} from '../../src/domain/order.js';

const refusal = (run: () => void) => {
  try {
    run();
  } catch (error) {
    return { message: (error as Error).message, extensions: (error as { extensions?: unknown }).extensions };
  }
  throw new Error('expected a refusal');
};
const CONFLICT = { code: 'CONFLICT', status: 409 };

describe('the order state machine', () => {
  it('has the four statuses, in their order', () => {
    expect(ORDER_STATUSES).toEqual(['placed', 'approved', 'delivered', 'cancelled']);
  });

  it('allows exactly placed → approved → delivered, and placed or approved → cancelled', () => {
    expect(TRANSITIONS).toEqual({ placed: ['approved', 'cancelled'], approved: ['delivered', 'cancelled'], delivered: [], cancelled: [] });
  });

  it.each<[OrderStatus, OrderStatus]>([['placed', 'approved'], ['placed', 'cancelled'], ['approved', 'delivered'], ['approved', 'cancelled']])(
    'lets an order go %s → %s', (from, to) => {
      expect(checkTransition(7, from, to)).toBeUndefined();
    },
  );

  it.each<[OrderStatus, OrderStatus, string]>([
    ['placed', 'delivered', 'from "placed" it can go to "approved" or "cancelled"'],
    ['placed', 'placed', 'from "placed" it can go to "approved" or "cancelled"'],
    ['approved', 'placed', 'from "approved" it can go to "delivered" or "cancelled"'],
    ['approved', 'approved', 'from "approved" it can go to "delivered" or "cancelled"'],
    ['delivered', 'cancelled', '"delivered" is final'],
    ['delivered', 'placed', '"delivered" is final'],
    ['delivered', 'delivered', '"delivered" is final'],
    ['cancelled', 'placed', '"cancelled" is final'],
    ['cancelled', 'approved', '"cancelled" is final'],
    ['cancelled', 'cancelled', '"cancelled" is final'],
  ])('refuses %s → %s with a conflict naming both states', (from, to, rest) => {
    expect(refusal(() => checkTransition(7, from, to)))
      .toEqual({ message: `Order 7 cannot go from "${from}" to "${to}"; ${rest}`, extensions: CONFLICT });
  });

  it('refuses every pair the table does not list, and only those', () => {
    for (const from of ORDER_STATUSES) {
      for (const to of ORDER_STATUSES) {
        const allowed = TRANSITIONS[from].includes(to);
        if (allowed) expect(() => checkTransition(1, from, to)).not.toThrow();
        else expect(() => checkTransition(1, from, to)).toThrow(`Order 1 cannot go from "${from}" to "${to}"`);
      }
    }
  });
});

describe('an order and its pet', () => {
  it('gives the pet the status each order status means', () => {
    expect(PET_STATUS_OF_ORDER).toEqual({ placed: 'pending', approved: 'pending', delivered: 'sold', cancelled: 'available' });
  });

  it('orders only available pets, and says so otherwise', () => {
    expect(ORDERABLE).toBe('available');
    expect(refusal(() => { throw notOrderable(3, 'pending'); }))
      .toEqual({ message: 'Pet 3 is pending, not available: it cannot be ordered', extensions: CONFLICT });
  });

  it.each<[OrderStatus, boolean]>([['placed', false], ['approved', false], ['delivered', true], ['cancelled', false]])(
    'counts an order %s as complete: %s', (status, complete) => {
      expect(isComplete(status)).toBe(complete);
    },
  );

  it('says an order is not found as NOT_FOUND', () => {
    expect(refusal(() => { throw orderNotFound(12); })).toEqual({ message: 'Order 12 not found', extensions: { code: 'NOT_FOUND', status: 404 } });
  });
});
