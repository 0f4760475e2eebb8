import { AsyncLocalStorage } from 'node:async_hooks';
import { pino } from 'pino';

/** Per-request facts every log line of that request carries, without threading them through calls. */
export interface RequestScope {
  readonly requestId: string;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

/** The one logger: JSON lines on stdout, each stamped with the request id when there is one. */
export const log = pino({
  base: undefined,
  mixin: () => {
    const scope = requestScope.getStore();
    return scope ? { requestId: scope.requestId } : {};
  },
});
