import { randomUUID } from 'node:crypto';
import { requestLog } from '../log.js';
import type { Step } from '../pipeline/pipeline.js';

const SAFE_ID = /^[\w.:-]{1,128}$/;

export interface RequestLogOptions {
  /** With traces on: the trace id of the request being answered, which its line then carries. */
  readonly traceId?: () => string | undefined;
}

/**
 * Gives each request an id (the caller's X-Request-Id when it is a sane token) that every log line of
 * the request carries and the response returns, and writes one line per request: method, path, route,
 * status, duration, the key's public prefix, and with traces on the trace id (chosen here, once, not
 * per request). Never the key, the Authorization header or a body.
 */
export function useRequestLog({ traceId }: RequestLogOptions = {}): Step {
  const write = traceId
    ? (line: object, message: string) => requestLog.info({ ...line, traceId: traceId() }, message)
    : (line: object, message: string) => requestLog.info(line, message);
  return {
    onRequest({ request, serverContext }) {
      const incoming = request.headers.get('x-request-id');
      serverContext.requestId = incoming && SAFE_ID.test(incoming) ? incoming : randomUUID();
    },
    onResponse({ request, response, serverContext }) {
      const { requestId, startedAt, caller, address, pathname, route } = serverContext;
      if (requestId) response.headers.set('X-Request-Id', requestId);
      write({
        requestId, method: request.method, path: pathname, route: route?.label ?? 'unmatched', status: response.status,
        durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
        keyPrefix: caller?.kind === 'key' ? caller.key.prefix : undefined, client: address,
      }, `${request.method} ${pathname} ${response.status}`);
    },
  };
}
