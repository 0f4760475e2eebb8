import { randomUUID } from 'node:crypto';
import { requestLog } from '../log.js';
import type { Step } from '../pipeline/pipeline.js';

const SAFE_ID = /^[\w.:-]{1,128}$/;

/**
 * Gives each request an id (the caller's X-Request-Id when it is a sane token) that every log line of
 * the request carries and the response returns, and writes one line per request: method, path, route,
 * status, duration, the key's public prefix. Never the key, the Authorization header or a body.
 */
export function useRequestLog(): Step {
  return {
    onRequest({ request, serverContext }) {
      const incoming = request.headers.get('x-request-id');
      serverContext.requestId = incoming && SAFE_ID.test(incoming) ? incoming : randomUUID();
    },
    onResponse({ request, response, serverContext }) {
      const { requestId, startedAt, caller, address, pathname, route } = serverContext;
      if (requestId) response.headers.set('X-Request-Id', requestId);
      requestLog.info({
        requestId, method: request.method, path: pathname, route: route?.label ?? 'unmatched', status: response.status,
        durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
        keyPrefix: caller?.kind === 'key' ? caller.key.prefix : undefined, client: address,
      }, `${request.method} ${pathname} ${response.status}`);
    },
  };
}
