import type { ServerAdapterPlugin } from '@whatwg-node/server';
import { appError, isAppError, renderError } from '../errors.js';
import { clientAddress } from '../http/client-address.js';
import type { ServerContext } from '../http/server-context.js';
import { surfaceOf } from '../http/surface.js';
import type { Authenticate } from './authenticate.js';

/** Works out who is calling; answers nothing itself, so limits can count anonymous requests too. */
export function useIdentify(authenticate: Authenticate, trustProxyHops: number): ServerAdapterPlugin<ServerContext> {
  return {
    async onRequest({ request, url, serverContext, endResponse }) {
      serverContext.address = clientAddress(serverContext.req, request, trustProxyHops);
      try {
        serverContext.caller = await authenticate(request.headers.get('authorization'));
      } catch (error) {
        // The key table is unreachable: say so (503), rather than call a good key bad.
        if (!isAppError(error)) throw error;
        endResponse(renderError(error, surfaceOf(url)));
      }
    },
  };
}

/** Past this point every request needs a valid key: 401 UNAUTHENTICATED with WWW-Authenticate otherwise. */
export function useRequireKey(): ServerAdapterPlugin<ServerContext> {
  return {
    onRequest({ url, serverContext, endResponse }) {
      const { caller } = serverContext;
      if (caller?.kind === 'key') return;
      const challenge = caller?.sentToken ? 'Bearer realm="animal-store", error="invalid_token"' : 'Bearer realm="animal-store"';
      const error = appError('UNAUTHENTICATED', caller?.problem ?? 'An API key is required');
      endResponse(renderError(error, surfaceOf(url), { 'WWW-Authenticate': challenge }));
    },
  };
}
