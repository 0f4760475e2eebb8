import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pageRead, touches, type Read, type Touch } from '../../src/cache/reads.js';
import { createResponseCache } from '../../src/cache/response-cache.js';

const KINDS = ['pet', 'order', 'ordersOfPet'] as const;
const read = fc.oneof(
  fc.record({ kind: fc.constantFrom(...KINDS), id: fc.integer({ min: 1, max: 40 }) }).map(({ kind, id }): Read => ({ kind, from: id, to: id })),
  fc.record({ kind: fc.constantFrom(...KINDS), from: fc.integer({ min: 1, max: 40 }), length: fc.integer({ min: 0, max: 60 }) })
    .map(({ kind, from, length }): Read => ({ kind, from, to: from + length })),
);
const touch = fc.record({ kind: fc.constantFrom(...KINDS), id: fc.integer({ min: 1, max: 100 }) });
const operation = fc.oneof(
  fc.record({
    op: fc.constant('store' as const), key: fc.integer({ min: 0, max: 60 }).map(String), size: fc.integer({ min: 0, max: 6_000 }),
    reads: fc.array(read, { maxLength: 8 }), changesBetween: fc.array(touch, { maxLength: 2 }),
  }),
  fc.record({ op: fc.constant('change' as const), touch }),
  fc.record({ op: fc.constant('get' as const), key: fc.integer({ min: 0, max: 60 }).map(String) }),
);

describe('the response cache', () => {
  it('stays within its bytes, and never keeps an answer a change reached, whatever the reads and writes', () => {
    fc.assert(fc.property(fc.integer({ min: 4_000, max: 40_000 }), fc.array(operation, { maxLength: 200 }), (maxBytes, operations) => {
      const cache = createResponseCache(maxBytes);
      /** What each kept key read, as far as the test knows it kept. */
      const kept = new Map<string, readonly Read[]>();
      for (const step of operations) {
        if (step.op === 'store') {
          const mark = cache.mark();
          // Changes while the answer was being made: one that reached what it read means it is not kept.
          for (const t of step.changesBetween) {
            cache.changed(t);
            for (const [key, reads] of kept) if (reads.some((r) => touches(r, t))) kept.delete(key);
          }
          const stale = step.changesBetween.some((t) => step.reads.some((r) => touches(r, t)));
          const stored = cache.store(step.key, { status: 200, headers: [['content-type', 'application/json']], body: Buffer.alloc(step.size, 120), etag: '"e"' }, step.reads, mark);
          if (stale) expect(stored).toBe(false);
          if (stored) kept.set(step.key, step.reads);
          else kept.delete(step.key);
        } else if (step.op === 'change') {
          cache.changed(step.touch);
          for (const [key, reads] of kept) {
            if (reads.some((r) => touches(r, step.touch))) {
              kept.delete(key);
              expect(cache.get(key)).toBeUndefined();
            }
          }
        } else {
          const found = cache.get(step.key);
          // Evicted (the bound), or never kept: either way, nothing the test's model says is gone comes back.
          if (!kept.has(step.key)) expect(found).toBeUndefined();
        }
        expect(cache.bytes).toBeLessThanOrEqual(maxBytes);
        expect(cache.bytes).toBeGreaterThanOrEqual(0);
      }
      cache.clear();
      expect(cache.bytes).toBe(0);
      expect(cache.size).toBe(0);
    }), { numRuns: 300 });
  });

  it('lets an answer kept with an end go at its end (what an instance keeps while it starts)', async () => {
    const cache = createResponseCache(8_000);
    const answer = { status: 200, headers: [], body: Buffer.from('x'), etag: '"e"' };
    cache.store('ends', answer, [], cache.mark(), performance.now() + 30);
    cache.store('stays', answer, [], cache.mark());
    expect(cache.get('ends')).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(cache.get('ends')).toBeUndefined();
    expect(cache.get('stays')).toBeDefined();
    expect(cache.size).toBe(1);
  });

  it('keeps no answer bigger than an eighth of the cache', () => {
    const cache = createResponseCache(8_000);
    expect(cache.store('big', { status: 200, headers: [], body: Buffer.alloc(1_200, 120), etag: '"e"' }, [], cache.mark())).toBe(false);
    expect(cache.store('small', { status: 200, headers: [], body: Buffer.alloc(100, 120), etag: '"e"' }, [], cache.mark())).toBe(true);
  });

  it('pushes out the least recently used first', () => {
    // Each entry about 1,600 bytes of 16,000: the tenth pushes one out.
    const cache = createResponseCache(16_000);
    const answer = { status: 200, headers: [], body: Buffer.alloc(1_200, 120), etag: '"e"' };
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']) cache.store(key, answer, [], cache.mark());
    expect(cache.size).toBe(9);
    cache.get('a');
    cache.store('j', answer, [], cache.mark());
    expect(cache.size).toBe(9);
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('b')).toBeUndefined();
  });
});

describe('changes applied early', () => {
  const answer = { status: 200, headers: [], body: new Uint8Array(10), etag: '"x"' };
  const pet = (id: number): Read => ({ kind: 'pet', from: id, to: id });

  it('drops what a write here changed at once, and what was kept after it survives the reader hearing of it', () => {
    const cache = createResponseCache(100_000);
    cache.store('before', answer, [pet(5)], cache.mark());
    cache.appliedEarly([41, 42], [{ kind: 'pet', id: 5 }]);
    expect(cache.get('before')).toBeUndefined();
    cache.store('after', answer, [pet(5)], cache.mark());
    cache.heard(41, [{ kind: 'pet', id: 5 }]);
    cache.heard(42, [{ kind: 'pet', id: 5 }]);
    expect(cache.get('after')).toBeDefined();
    // An event this instance did not apply early drops it as any change does.
    cache.heard(43, [{ kind: 'pet', id: 5 }]);
    expect(cache.get('after')).toBeUndefined();
  });

  it('never keeps an answer begun before a change applied early', () => {
    const cache = createResponseCache(100_000);
    const mark = cache.mark();
    cache.appliedEarly([7], [{ kind: 'pet', id: 3 }]);
    expect(cache.store('late', answer, [pet(3)], mark)).toBe(false);
  });
});

describe('what a page read', () => {
  const rows = (...ids: number[]) => ids.map((id) => ({ id }));
  it('is the ids after its cursor up to its last row when full, and every id above when not', () => {
    expect(pageRead('pet', undefined, 3, rows(1, 2, 5))).toEqual({ kind: 'pet', from: 1, to: 5 });
    expect(pageRead('pet', 5, 3, rows(7))).toEqual({ kind: 'pet', from: 6, to: Number.MAX_SAFE_INTEGER });
    const page = pageRead('order', 10, 2, rows(11, 14));
    const at = (id: number): Touch => ({ kind: 'order', id });
    expect([10, 11, 13, 14, 15].map((id) => touches(page, at(id)))).toEqual([false, true, true, true, false]);
    expect(touches(page, { kind: 'pet', id: 11 })).toBe(false);
  });
});
