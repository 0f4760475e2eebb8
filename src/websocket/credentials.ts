import { CloseCode } from 'graphql-ws';
import type { WebSocket } from 'ws';
import type { ActiveKey, Caller } from '../auth/authenticate.js';
import type { Clock } from '../clock.js';
import { reasonOf } from './close-reason.js';
import type { SocketGuard } from './socket-guard.js';

/** What a socket closed at its credentials' expiry says: the client's cue to reconnect with new ones. */
export const EXPIRED_REASON = 'The credentials expired: reconnect with fresh ones';

/** setTimeout's longest delay (2^31-1 ms, about 24.8 days): a longer one fires at once. */
const LONGEST_TIMEOUT_MS = 2 ** 31 - 1;

export interface Watch {
  readonly socket: WebSocket;
  readonly guard: SocketGuard;
  /** The key (or token) accepted at connection_init. */
  readonly key: ActiveKey;
  /** The caller's standing now: undefined when it cannot be told (the key table unreachable). */
  readonly recheck: () => Promise<Caller | undefined>;
  readonly recheckMs: number;
  /** The time the key's expiry is measured against, as authentication measures it. */
  readonly clock: Clock;
}

/**
 * Keeps an accepted socket open no longer than its caller's credentials: the key is looked at again every
 * `recheckMs` (a revoked key closes the socket within the key cache's TTL), and a key with an end closes
 * it at that end, not at the next recheck. An end beyond setTimeout's reach is left to the recheck.
 */
export function watchCredentials({ socket, guard, key, recheck, recheckMs, clock }: Watch): void {
  guard.watchKey(async () => {
    const now = await recheck();
    // An unreachable key table is no revocation: the socket stays.
    if (now?.kind === 'anonymous') forbid(socket, now.problem);
  }, recheckMs);
  if (key.expiresAt === undefined) return;
  const inMs = key.expiresAt - clock.now();
  if (inMs <= LONGEST_TIMEOUT_MS) guard.endIn(() => forbid(socket, EXPIRED_REASON), Math.max(0, inMs));
}

/** The one way a socket closes for its credentials: 4403 (graphql-ws's Forbidden), which its client does not retry as is. */
function forbid(socket: WebSocket, reason: string): void {
  socket.close(CloseCode.Forbidden, reasonOf(reason));
}
