import type { Clock } from '../clock.js';
import type { ApiKeyStore } from '../db/api-keys.js';
import { keyStanding } from '../domain/key-standing.js';
import { limitsOf, type Plan } from '../domain/plans.js';
import { storedScopes } from '../domain/scopes.js';
import { isDocumentMode } from '../settings/declarations.js';
import { log } from '../log.js';
import { bearerToken, checksumHolds, hashKey, looksLikeKey } from './keys.js';
import type { ActiveKey, Caller } from './caller.js';
import type { TokenCallers } from './tokens/token-callers.js';
import { looksLikeJwt } from './tokens/verify.js';

export { NO_KEY_REASONS, type ActiveKey, type Caller, type NoKeyReason } from './caller.js';

/** A key record as the cache keeps it: usable, revoked (for good), or none. */
type Found = ActiveKey | 'revoked' | null;

const CACHE_LIMIT = 10_000;
/** A key's last use is written at most this often (per instance; the store's own check makes it per key). */
const TOUCH_EVERY_MS = 60_000;

/**
 * Bearer token → caller. Lookups, unknown keys included, are cached per instance for `ttlSeconds`, so
 * the database is asked at most once per key and TTL however hard a key is used or guessed at; a
 * revoked key stops working on every instance within that time.
 */
export function createAuthenticator(keys: ApiKeyStore, ttlSeconds: number, clock: Clock, tokens?: TokenCallers) {
  const cache = new Map<string, { key: Found; expires: number }>();

  async function load(hash: string, now: number): Promise<Found> {
    const record = await keys.findByHash(hash);
    // Revoked is for good (cached so); expiry is checked at each call, against the cached end.
    const standing = record && keyStanding(record, -Infinity);
    const key: Found = !record ? null : standing === 'revoked' ? 'revoked' : {
        id: record.id, prefix: record.prefix, plan: record.plan, ...limitsOf(record),
        ...(record.expiresAt ? { expiresAt: record.expiresAt.getTime() } : {}),
        ...(record.scopes !== null ? { scopes: storedScopes(record.scopes)! } : {}),
        ...(isDocumentMode(record.documents) ? { documents: record.documents } : {}),
      };
    if (ttlSeconds > 0) {
      cache.delete(hash);
      // Oldest first: a flood of guesses evicts guesses, while keys in use keep coming back.
      if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
      cache.set(hash, { key, expires: now + ttlSeconds * 1000 });
    }
    return key;
  }

  const touched = new Map<number, number>();
  /** Off the request's path: the write is not waited for, and a failure only logged. */
  const touch = (id: number, now: number) => {
    if (now - (touched.get(id) ?? -Infinity) < TOUCH_EVERY_MS) return;
    if (touched.size >= CACHE_LIMIT) touched.clear();
    touched.set(id, now);
    keys.touch(id, new Date(Math.floor(now / 1000) * 1000)).catch((error: unknown) => log.warn({ err: error }, 'could not record a key\'s last use'));
  };

  const callerOf = (key: Found, now: number): Caller => {
    // The client is told the same of both: which keys exist is not for it to learn.
    if (!key || key === 'revoked') return { kind: 'anonymous', problem: 'The API key is unknown or revoked', sentToken: true, reason: key ?? 'unknown' };
    if (keyStanding(key, now) === 'expired') {
      return {
        kind: 'anonymous', problem: `The API key expired at ${new Date(key.expiresAt!).toISOString()}; use its successor, or ask for a new key`, sentToken: true, reason: 'expired',
      };
    }
    touch(key.id, now);
    return { kind: 'key', key };
  };

  /** A cached key is answered at once; only a look-up in the database is waited for. */
  return function authenticate(authorization: string | null): Caller | Promise<Caller> {
    const token = bearerToken(authorization);
    if (!token) {
      const problem = authorization
        ? 'The Authorization header must be "Bearer <API key>"'
        : 'An API key is required: send "Authorization: Bearer <API key>"';
      return { kind: 'anonymous', problem, sentToken: false, reason: authorization ? 'malformed' : 'missing' };
    }
    // One step tells the two apart; what follows sees a caller either way.
    if (tokens && looksLikeJwt(token)) return tokens.callerOf(token);
    const now = clock.now();
    if (!looksLikeKey(token)) return callerOf(null, now);
    if (!checksumHolds(token)) {
      return { kind: 'anonymous', problem: 'The API key is mistyped: its checksum does not match; copy it again', sentToken: true, reason: 'mistyped' };
    }
    const hash = hashKey(token);
    const hit = cache.get(hash);
    if (hit && hit.expires > now) return callerOf(hit.key, now);
    return load(hash, now).then((key) => callerOf(key, now));
  };
}

export type Authenticate = ReturnType<typeof createAuthenticator>;

/**
 * How often something that stays open on a key (a subscription's stream, a WebSocket) looks at the key
 * again: twice per cache lifetime, so a revoked key's streams and sockets end within the key cache's TTL.
 */
export const recheckEvery = (keyCacheTtlSeconds: number): number => Math.max(250, (keyCacheTtlSeconds * 1000) / 2);
