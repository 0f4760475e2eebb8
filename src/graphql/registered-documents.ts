import type { Clock } from '../clock.js';
import type { RedisClient } from '../redis/clients.js';
import type { Deadline, FallbackReport } from '../redis/deadline.js';

/** What became of a registration: stored now, stored before, refused by the key's quota or by its size. */
export type Registration = 'stored' | 'known' | 'over-quota' | 'too-large';

/** The largest document registered: what the parse cache keeps too (operation-checker.ts). */
export const MAX_REGISTERED_LENGTH = 8 * 1024;

/**
 * Automatic persisted queries: documents a client registered by sending their text with their SHA-256,
 * found again by the hash alone, on every instance.
 */
export interface RegisteredDocuments {
  find(hash: string): Promise<string | undefined>;
  register(hash: string, text: string, keyId: number): Promise<Registration>;
}

export interface RegisteredOptions {
  readonly ttlSeconds: number;
  /** New documents one key may register per TTL window. */
  readonly perKey: number;
  readonly clock: Clock;
  readonly redis?: { readonly client: RedisClient; readonly prefix: string; readonly bound: Deadline; readonly report: FallbackReport };
}

/**
 * Each instance keeps the documents it met last, bounded in count and characters (the documents are at
 * most 8 KB each: a larger one is never registered), so one key cannot fill its memory; Redis, when
 * there is one, is the store every instance shares, each document kept for the TTL. The per-key quota
 * bounds what one key may put there: `perKey` × keys × 8 KB at most.
 */
const LOCAL_ENTRIES = 1_000;
const LOCAL_CHARACTERS = 2 * 1024 * 1024;

export function registeredDocuments(options: RegisteredOptions): RegisteredDocuments {
  const store = documentStore(options);
  return {
    find: store.find,
    register: async (hash, text, keyId) => (text.length > MAX_REGISTERED_LENGTH ? 'too-large' : store.register(hash, text, keyId)),
  };
}

function documentStore({ ttlSeconds, perKey, clock, redis }: RegisteredOptions): RegisteredDocuments {
  const local = new Map<string, { text: string; until: number }>();
  let characters = 0;
  const quotas = new Map<number, { used: number; until: number }>();

  const remember = (hash: string, text: string) => {
    forget(hash);
    while (local.size >= LOCAL_ENTRIES || characters + text.length > LOCAL_CHARACTERS) forget(local.keys().next().value!);
    local.set(hash, { text, until: clock.now() + ttlSeconds * 1000 });
    characters += text.length;
  };
  const forget = (hash: string) => {
    const known = local.get(hash);
    if (!known) return;
    local.delete(hash);
    characters -= known.text.length;
  };
  const localText = (hash: string) => {
    const known = local.get(hash);
    if (known && known.until > clock.now()) return known.text;
    if (known) forget(hash);
    return undefined;
  };
  /** This instance's count, used when there is no Redis or it fails. */
  const takeLocalQuota = (keyId: number): boolean => {
    const now = clock.now();
    let quota = quotas.get(keyId);
    if (!quota || quota.until <= now) quotas.set(keyId, quota = { used: 0, until: now + ttlSeconds * 1000 });
    if (quota.used >= perKey) return false;
    quota.used += 1;
    return true;
  };
  const registerLocally = (hash: string, text: string, keyId: number): Registration => {
    if (localText(hash) !== undefined) return 'known';
    if (!takeLocalQuota(keyId)) return 'over-quota';
    remember(hash, text);
    return 'stored';
  };

  if (!redis) {
    return {
      find: async (hash) => localText(hash),
      register: async (hash, text, keyId) => registerLocally(hash, text, keyId),
    };
  }
  const { client, prefix, bound, report } = redis;
  const documentKey = (hash: string) => `${prefix}:document:${hash}`;
  // The key's own hash tag, as its limits have: a Cluster keeps each key's counters in one slot.
  const quotaKey = (keyId: number) => `${prefix}:documents-registered:{key:${keyId}}`;
  return {
    async find(hash) {
      const known = localText(hash);
      if (known !== undefined) return known;
      try {
        const text = await bound(client.get(documentKey(hash)));
        report.succeeded('persisted documents');
        if (text !== null) remember(hash, text);
        return text ?? undefined;
      } catch (error) {
        // Not found, as far as this request can tell: the client sends the text next, which runs.
        report.failed('persisted documents', error);
        return undefined;
      }
    },
    async register(hash, text, keyId) {
      if (localText(hash) !== undefined) return 'known';
      if (perKey === 0) return 'over-quota';
      try {
        const stored = await bound(client.set(documentKey(hash), text, 'EX', ttlSeconds, 'NX'));
        if (stored === null) {
          remember(hash, text);
          return 'known';
        }
        const used = await bound(client.incr(quotaKey(keyId)));
        if (used === 1) await bound(client.expire(quotaKey(keyId), ttlSeconds));
        if (used > perKey) {
          await bound(client.del(documentKey(hash)));
          return 'over-quota';
        }
        report.succeeded('persisted documents');
        remember(hash, text);
        return 'stored';
      } catch (error) {
        report.failed('persisted documents', error);
        return registerLocally(hash, text, keyId);
      }
    },
  };
}
