/** A subject's windows: fixed, aligned to the clock, and named as the IETF RateLimit fields name them. */
export interface Window {
  readonly name: 'minute' | 'day';
  readonly limit: number;
  /** Seconds. */
  readonly duration: number;
}

/** Whom a request is counted against: a key (its plan's windows, bannable) or a client address. */
export interface Subject {
  /** A Redis hash tag (`{key:7}`): every key of one subject is in one slot. */
  readonly id: string;
  /** Shortest first. */
  readonly windows: readonly Window[];
  readonly bannable: boolean;
  /** A Redis key of the subject's slot to read in the same call (its last write, for read replicas). */
  readonly read?: string;
}

/** A window as the IETF fields name it. */
export const policyOf = (w: Window) => ({ name: w.name, limit: w.limit, seconds: w.duration });

/**
 * Fixed windows aligned to the clock: the minute window resets at every whole minute, the day window at
 * 00:00 UTC. Every instance reads the same boundaries from its clock, and a window's counter is keyed by
 * its start, so the clock alone decides which window a request falls in (tests move it by hand).
 */
export const windowAt = (now: number, seconds: number) => {
  const length = seconds * 1000;
  const index = Math.floor(now / length);
  return { index, msBeforeReset: (index + 1) * length - now };
};
