import { createLocalJWKSet, errors, type JSONWebKeySet, type JWSHeaderParameters, type FlattenedJWSInput } from 'jose';
import { log } from '../../log.js';
import { fetchIssuerKeys } from './discovery.js';

/** A token naming a key its issuer does not publish waits for at most one fetch per issuer this often. */
export const REFETCH_COOLDOWN_MS = 5_000;

/** No keys of the issuer can be had (never fetched, or older than trusted, and the provider unreachable). */
export class KeysUnavailable extends Error {
  constructor(readonly issuer: string) {
    super(`The keys of ${issuer} cannot be fetched`);
    this.name = 'KeysUnavailable';
  }
}

export interface IssuerKeys {
  /** The key that verifies a token with this header, for jose's jwtVerify. */
  key(header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey>;
  /** The first fetch, begun at once and not waited for by startup. */
  start(): void;
  stop(): void;
}

type KeySet = ReturnType<typeof createLocalJWKSet>;

/**
 * One issuer's published keys, kept in the process: fetched at start and every `refreshMs` in the
 * background; a token whose `kid` is unknown fetches again (one fetch shared by every request waiting on
 * it, at most one per REFETCH_COOLDOWN_MS, so made-up kids never become a flood at the provider). While the
 * provider is unreachable the last good keys serve for `maxStaleMs`, and an unknown kid is refused at once.
 */
export function issuerKeys(issuer: string, refreshMs: number, maxStaleMs: number, now: () => number = Date.now): IssuerKeys {
  let keys: { set: KeySet; at: number } | undefined;
  let pending: Promise<void> | undefined;
  let lastAttempt = -Infinity;
  let lastFailed = false;
  let timer: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;

  const refresh = (): Promise<void> => {
    pending ??= fetchIssuerKeys(issuer)
      .then((jwks: JSONWebKeySet) => {
        keys = { set: createLocalJWKSet(jwks), at: now() };
        if (lastFailed) log.info({ issuer }, 'an issuer\'s keys can be fetched again');
        lastFailed = false;
      }, (error: unknown) => {
        if (!lastFailed) log.warn({ issuer, err: error }, 'an issuer\'s keys could not be fetched: its last keys serve meanwhile');
        lastFailed = true;
        // Tried again soon, in the background, so that recovery never waits on a token being refused first.
        clearTimeout(retry);
        retry = setTimeout(() => void refresh(), REFETCH_COOLDOWN_MS);
        retry.unref();
      })
      .finally(() => { lastAttempt = now(); pending = undefined; });
    return pending;
  };
  const usable = () => (keys && now() - keys.at <= maxStaleMs ? keys.set : undefined);

  return {
    async key(header, token) {
      let set = usable();
      if (!set) {
        // Nothing to verify with yet (startup, or a long outage): the token waits for the fetch under way, or
        // starts one; not while the last failed a moment ago (its retry is scheduled), or every token sent
        // to a service whose provider is down would be a fetch at the provider.
        if (pending || !lastFailed || now() - lastAttempt >= REFETCH_COOLDOWN_MS) await refresh();
        set = usable();
        if (!set) throw new KeysUnavailable(issuer);
      }
      try {
        return await set(header, token);
      } catch (error) {
        if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
        // A key the provider may have just added: fetch once more, unless it was tried a moment ago or is down.
        // The provider is known to be down (its retry is scheduled), or was asked a moment ago: refused at once.
        if (lastFailed || now() - lastAttempt < REFETCH_COOLDOWN_MS) throw error;
        await refresh();
        return (usable() ?? set)(header, token);
      }
    },
    start() {
      void refresh();
      timer = setInterval(() => void refresh(), refreshMs);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      clearTimeout(retry);
    },
  };
}
