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
