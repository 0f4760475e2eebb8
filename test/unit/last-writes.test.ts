import { describe, expect, it } from 'vitest';
import { ON_PRIMARY } from '../../src/db/positions.js';
import { fallbackReport } from '../../src/redis/deadline.js';
import { lastWrites } from '../../src/reads/last-writes.js';
import { testClock } from '../support/clock.js';

const memoryOnly = (clock = testClock()) => lastWrites({
  redis: undefined, prefix: 'p', seconds: 10, clock, bound: (call) => call, report: fallbackReport(() => undefined),
});

describe('a key\'s last write', () => {
  it('is kept in the key\'s hash slot, beside its limit counters', () => {
    expect(memoryOnly().key('{key:7}')).toBe('p:{key:7}:last-write');
  });

  it('is what Redis read for it: a position, or the primary when the write reported none', () => {
    const writes = memoryOnly();
    expect(writes.after(7, '0-1-503')).toBe('0-1-503');
    expect(writes.after(7, 'primary')).toBe(ON_PRIMARY);
  });

  it('without an answer from Redis, is this instance\'s own, for the window only', async () => {
    const clock = testClock();
    const writes = memoryOnly(clock);
    expect(writes.after(7, null)).toBeUndefined();
    await writes.remember(7, '0-1-9');
    await writes.remember(8, ON_PRIMARY);
    expect(writes.after(7, undefined)).toBe('0-1-9');
    expect(writes.after(7, null)).toBe('0-1-9');
    expect(writes.after(8, undefined)).toBe(ON_PRIMARY);
    expect(writes.after(9, undefined)).toBeUndefined();
    clock.advance(10_000);
    expect(writes.after(7, undefined)).toBeUndefined();
  });
});
