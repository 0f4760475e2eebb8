import { appError } from '../errors.js';
import { clientAddress } from '../pipeline/client-address.js';
import type { ServerContext } from '../pipeline/context.js';
import type { Step } from '../pipeline/pipeline.js';
import type { Authenticate, Caller, NoKeyReason } from './authenticate.js';

declare module '../pipeline/context.js' {
  interface ServerContext {
    /** Who is calling: a key, or an anonymous client (set by useIdentify). */
    caller?: Caller;
    /** The client's address, as TRUST_PROXY says to read it. */
    address?: string;
  }
}

/** The request carries a valid key: it may be checked, costed and run. */
export const hasKey = (serverContext: ServerContext): boolean => serverContext.caller?.kind === 'key';

/** Who the caller is, beyond what it may do: what its own records belong to, and an answer made for it alone. */
export const identityOf = (caller: Caller | undefined): string | undefined => (caller?.kind === 'key' ? `key ${caller.key.id}` : undefined);

/**
 * Works out who is calling; answers nothing itself, so limits can count anonymous requests too. When the
 * key table is unreachable the lookup throws UNAVAILABLE (503), which the error boundary answers: a good
 * key is never called bad for it.
 */
export function useIdentify(authenticate: Authenticate, trustProxyHops: number): Step {
  return {
    onRequest({ request, serverContext }) {
      serverContext.address = clientAddress((serverContext.req?.socket ?? serverContext.via)?.remoteAddress, request, trustProxyHops);
      const caller = authenticate(request.headers.get('authorization'));
      if (!(caller instanceof Promise)) {
        serverContext.caller = caller;
        return undefined;
      }
      return caller.then((found) => { serverContext.caller = found; });
    },
  };
}

/** Past this point every request needs a valid key: 401 UNAUTHENTICATED with WWW-Authenticate otherwise, counted by reason. */
export function useRequireKey(refused: (reason: NoKeyReason) => void = () => undefined): Step {
  return {
    onRequest({ serverContext: { caller } }) {
      if (caller?.kind === 'key') return;
      refused(caller?.reason ?? 'missing');
      const challenge = caller?.sentToken ? 'Bearer realm="animal-store", error="invalid_token"' : 'Bearer realm="animal-store"';
      throw appError('UNAUTHENTICATED', caller?.problem ?? 'An API key is required', { headers: { 'WWW-Authenticate': challenge } });
    },
  };
}
