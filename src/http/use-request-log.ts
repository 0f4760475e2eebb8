import { randomUUID } from 'node:crypto';
import type { ServerAdapterPlugin } from '@whatwg-node/server';
import { log } from '../log.js';
import type { ServerContext } from './server-context.js';

const SAFE_ID = /^[\w.:-]{1,128}$/;

interface Started {
  readonly id: string;
  readonly at: number;
}

/**
 * Gives each request an id (the caller's X-Request-Id when it is a sane token) that every log line of
 * the request carries and the response returns, and writes one line per request: method, path, route,
 * status, duration, the key's public prefix. Never the key, the Authorization header or a body.
 */
const started = new WeakMap<Request, Started>();
const start = (request: Request): Started => {
  let found = started.get(request);
  if (!found) {
    const incoming = request.headers.get('x-request-id');
    found = { id: incoming && SAFE_ID.test(incoming) ? incoming : randomUUID(), at: performance.now() };
    started.set(request, found);
  }
  return found;
};

/** The request's id, for a log line about it written anywhere in the pipeline. */
export const requestIdOf = (request: Request): string => start(request).id;

export function useRequestLog(): ServerAdapterPlugin<ServerContext> {
  return {
    onRequest({ request, serverContext }) {
      serverContext.requestId = start(request).id;
    },
    onResponse({ request, response, serverContext }) {
      const { id, at } = start(request);
      response.headers.set('X-Request-Id', id);
      const { caller, address, pathname, route } = serverContext;
      log.info({
        requestId: id, method: request.method, path: pathname, route: route?.label ?? 'unmatched', status: response.status,
        durationMs: Math.round((performance.now() - at) * 10) / 10,
        keyPrefix: caller?.kind === 'key' ? caller.key.prefix : undefined, client: address,
      }, `${request.method} ${pathname} ${response.status}`);
    },
  };
}
