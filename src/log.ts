import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type Logger, type LoggerOptions } from 'pino';

/** Per-request facts every log line of that request carries, without threading them through calls. */
export interface RequestScope {
  readonly requestId: string;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

const options: LoggerOptions = {
  base: undefined,
  // Never let a credential into a log line, however it got into the object being logged.
  redact: { paths: ['authorization', '*.authorization', 'headers.authorization', 'key', '*.key'], censor: '[redacted]' },
  mixin: () => {
    const scope = requestScope.getStore();
    return scope ? { requestId: scope.requestId } : {};
  },
};

/** The one logger: JSON lines on stdout, each stamped with the request id when there is one. */
export let log: Logger = pino(options);

/** Called once by main.ts: people at a terminal get pretty lines, machines get JSON. */
export function configureLog({ level, pretty }: { level: string; pretty: boolean }): void {
  log = pretty
    ? pino({ ...options, level }, pino.transport({ target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } }))
    : pino({ ...options, level });
}
