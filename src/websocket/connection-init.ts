import type { IncomingMessage } from 'node:http';
import { CloseCode } from 'graphql-ws';
import type { WebSocket } from 'ws';
import type { Authenticate } from '../auth/authenticate.js';
import type { Clock } from '../clock.js';
import type { Handler } from '../pipeline/pipeline.js';
import { reasonOf } from './close-reason.js';
import { authorizationOf } from './connection-params.js';
import { watchCredentials } from './credentials.js';
import { runOperation, type Peer } from './operation.js';
import type { SocketGuard } from './socket-guard.js';

/** The per-connection state graphql-ws keeps (its `extra`): the socket, its upgrade request, and ours. */
export interface Connection {
  readonly socket: WebSocket;
  readonly request: IncomingMessage;
  readonly guard: SocketGuard;
  /** Set once connection_init is accepted: whom the socket's operations are run for. */
  peer?: Peer;
}

export interface ConnectionInitOptions {
  /** The request pipeline, as every HTTP request runs it. */
  readonly run: Handler;
  readonly authenticate: Authenticate;
  /** How often an open socket's key is looked at again: a revoked key's sockets close within the key cache's TTL. */
  readonly recheckMs: number;
  /** The time authentication reads: a key's expiry is counted down from it. */
  readonly clock: Clock;
  /** Proxies in front that append X-Forwarded-For (TRUST_PROXY): only then is it read. */
  readonly trustProxyHops: number;
}

/**
 * graphql-ws's onConnect: connection_init must carry a key that is good now, else the socket is closed
 * (4403, with the refusal's words); an accepted socket lives no longer than its key (credentials.ts: a
 * revoked key closes it within the key cache's TTL, an expiring one at its expiry). True when accepted.
 */
export function connectionInit(options: ConnectionInitOptions) {
  const { run, authenticate, recheckMs, clock, trustProxyHops } = options;
  return async (connectionParams: Readonly<Record<string, unknown>> | undefined, connection: Connection): Promise<boolean> => {
    const authorization = authorizationOf(connectionParams);
    const caller = await Promise.resolve(authenticate(authorization)).catch(() => undefined);
    if (caller?.kind !== 'key') {
      // Refused as the request it would be (a point from the address's budget, a log line), with its words.
      const refusal = await runOperation(run, peerOf(connection.request, authorization ?? '', trustProxyHops), { query: '{ __typename }' }, AbortSignal.abort());
      const [first] = 'errors' in refusal ? refusal.errors : [];
      // The key table unreachable: no verdict on the key, so the client may try again (1013, Try Again Later).
      const code = caller === undefined ? 1013 : CloseCode.Forbidden;
      connection.socket.close(code, reasonOf(first?.message ?? 'Forbidden'));
      return false;
    }
    connection.peer = peerOf(connection.request, authorization!, trustProxyHops);
    watchCredentials({
      socket: connection.socket, guard: connection.guard, key: caller.key, recheckMs, clock,
      recheck: () => Promise.resolve(authenticate(authorization)).catch(() => undefined),
    });
    return true;
  };
}

/** What the pipeline reads of a request's origin, from the upgrade request. */
function peerOf(request: IncomingMessage, authorization: string, trustProxyHops: number): Peer {
  const forwarded = request.headers['x-forwarded-for'];
  return {
    authorization,
    remoteAddress: request.socket.remoteAddress,
    forwardedFor: trustProxyHops > 0 ? (Array.isArray(forwarded) ? forwarded.join(', ') : forwarded) : undefined,
  };
}
