import type { Clock } from '../clock.js';
import type { ApiKeyStore } from '../db/api-keys.js';
import { limitsOf, type Plan } from '../limits/plans.js';
import { bearerToken, hashKey, looksLikeKey } from './keys.js';

/** A key that may be used now, with the limits it is held to. */
export interface ActiveKey {
  readonly id: number;
  readonly prefix: string;
  readonly plan: Plan;
  readonly perMinute: number;
  readonly perDay: number;
}

export type Caller =
  | { readonly kind: 'key'; readonly key: ActiveKey }
  | { readonly kind: 'anonymous'; readonly problem: string; readonly sentToken: boolean };

const CACHE_LIMIT = 10_000;

/**
 * Bearer token → caller. Lookups, unknown keys included, are cached per instance for `ttlSeconds`, so
 * the database is asked at most once per key and TTL however hard a key is used or guessed at; a
 * revoked key stops working on every instance within that time.
 */
export function createAuthenticator(keys: ApiKeyStore, ttlSeconds: number, clock: Clock) {
  const cache = new Map<string, { key: ActiveKey | null; expires: number }>();

  async function load(hash: string, now: number): Promise<ActiveKey | null> {
    const record = await keys.findByHash(hash);
    const key = record && !record.revokedAt
      ? { id: record.id, prefix: record.prefix, plan: record.plan, ...limitsOf(record) }
      : null;
    if (ttlSeconds > 0) {
      cache.delete(hash);
      // Oldest first: a flood of guesses evicts guesses, while keys in use keep coming back.
      if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
      cache.set(hash, { key, expires: now + ttlSeconds * 1000 });
    }
    return key;
  }

  const callerOf = (key: ActiveKey | null): Caller => (key
    ? { kind: 'key', key }
    : { kind: 'anonymous', problem: 'The API key is unknown or revoked', sentToken: true });

  /** A cached key is answered at once; only a look-up in the database is waited for. */
  return function authenticate(authorization: string | null): Caller | Promise<Caller> {
    const token = bearerToken(authorization);
    if (!token) {
      const problem = authorization
        ? 'The Authorization header must be "Bearer <API key>"'
        : 'An API key is required: send "Authorization: Bearer <API key>"';
      return { kind: 'anonymous', problem, sentToken: false };
    }
    if (!looksLikeKey(token)) return callerOf(null);
    const hash = hashKey(token);
    const now = clock.now();
    const hit = cache.get(hash);
    if (hit && hit.expires > now) return callerOf(hit.key);
    return load(hash, now).then(callerOf);
  };
}

export type Authenticate = ReturnType<typeof createAuthenticator>;
