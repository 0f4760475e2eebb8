import { afterAll, beforeAll } from 'vitest';
import { petCounter } from './pet-count.js';
import { startServer, type TestServer } from './server.js';

export interface FuzzTarget {
  readonly api: TestServer;
  readonly pets: Awaited<ReturnType<typeof petCounter>>;
  /** The server client's key, for arbitraries that send it (or break it). */
  readonly key: string;
  /** A key restricted to reading animals: every other call of it is 403 FORBIDDEN. */
  readonly restrictedKey: string;
}

/** A server for a property test, started before the file's tests and closed after them. */
export function fuzzTarget(): FuzzTarget {
  const target = {} as { -readonly [K in keyof FuzzTarget]: FuzzTarget[K] };
  beforeAll(async () => {
    // Windows wide enough that the fuzz never meets a 429 it did not ask for; limits have tests of their own.
    target.api = await startServer({ rateLimits: { anonymousPerMinute: 1_000_000 } });
    target.pets = await petCounter(target.api.store);
    target.key = target.api.headers.authorization!.slice('Bearer '.length);
    target.restrictedKey = (await target.api.newKey('enterprise', { perMinute: 1_000_000, perDay: 1_000_000 }, 'pets:read')).key;
  });
  afterAll(async () => {
    await target.pets?.close();
    await target.api?.close();
  });
  return target;
}
