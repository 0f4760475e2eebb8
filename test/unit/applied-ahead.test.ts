import { describe, expect, it } from 'vitest';
import { appliedAhead } from '../../src/cache/applied-ahead.js';

describe('writes applied ahead of the outbox reader', () => {
  it('covers a key\'s last write here only once its write before, elsewhere, has been read', () => {
    const ahead = appliedAhead();
    // The key wrote elsewhere (id 10), then here (id 12) before this instance read 10.
    ahead.note(1, 12, 10);
    expect(ahead.covers(1, 12, 9)).toBe(false);
    expect(ahead.covers(1, 12, 10)).toBe(true);
    // Another write of the key, elsewhere, since (Redis names 14): not this one's to cover.
    expect(ahead.covers(1, 14, 13)).toBe(false);
    // Another key's write is its own.
    expect(ahead.covers(2, 12, 11)).toBe(false);
  });

  it('carries what must have been read across the key\'s writes here in a row', () => {
    const ahead = appliedAhead();
    ahead.note(1, 5, 3);
    ahead.note(1, 6, 5);
    ahead.note(1, 8, 6);
    expect(ahead.covers(1, 8, 2)).toBe(false);
    expect(ahead.covers(1, 8, 3)).toBe(true);
    // A write elsewhere between them starts the chain again.
    ahead.note(1, 11, 9);
    expect(ahead.covers(1, 11, 8)).toBe(false);
    expect(ahead.covers(1, 11, 9)).toBe(true);
  });

  it('tells whether a change applied here is still ahead of the reader', () => {
    const ahead = appliedAhead();
    expect(ahead.ahead(0)).toBe(false);
    ahead.note(1, 7, 0);
    expect(ahead.ahead(6)).toBe(true);
    expect(ahead.ahead(7)).toBe(false);
  });
});
