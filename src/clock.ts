/**
 * Where the service reads the time for its windows, bans and caches. Tests pass a clock they move by
 * hand, so they are exact and never wait out a window.
 */
export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
