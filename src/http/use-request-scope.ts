import { randomUUID } from 'node:crypto';
import type { ServerAdapterPlugin } from '@whatwg-node/server';
import { requestScope } from '../log.js';

const SAFE_ID = /^[\w.:-]{1,128}$/;

/**
 * Gives each request an id (the caller's X-Request-Id when it is a sane token) that every log line of
 * the request carries and the response returns, so a client's report can be found in the logs.
 */
export function useRequestScope(): ServerAdapterPlugin {
  const ids = new WeakMap<Request, string>();
  const idOf = (request: Request) => {
    let id = ids.get(request);
    if (!id) {
      const incoming = request.headers.get('x-request-id');
      id = incoming && SAFE_ID.test(incoming) ? incoming : randomUUID();
      ids.set(request, id);
    }
    return id;
  };
  return {
    instrumentation: {
      request: ({ request }, wrapped) => requestScope.run({ requestId: idOf(request) }, wrapped),
    },
    onResponse({ request, response }) {
      response.headers.set('X-Request-Id', idOf(request));
    },
  };
}
