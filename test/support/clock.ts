import type { Clock } from '../../src/clock.js';

export interface TestClock extends Clock {
  /** Moves time on, as if `ms` had passed. */
  advance(ms: number): void;
}

/** A clock that stands still until a test moves it: windows, bans and caches become exact. */
export function testClock(start = Date.now()): TestClock {
  let now = start;
  return { now: () => now, advance: (ms) => { now += ms; } };
}

/**
 * A clock that keeps real time, for what the service times with a timer as well as reads on its clock (a
 * socket closed at its key's expiry): moved by hand, the two would disagree.
 */
export function realClock(): TestClock {
  return { now: () => Date.now(), advance: () => { throw new Error('a real clock is not moved by hand'); } };
}
