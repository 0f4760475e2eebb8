import { pino, type Logger, type LoggerOptions } from 'pino';

const options: LoggerOptions = {
  base: undefined,
  // Never let a credential into a log line, however it got into the object being logged.
  redact: { paths: ['authorization', '*.authorization', 'headers.authorization', 'key', '*.key'], censor: '[redacted]' },
};

/**
 * The one logger: JSON lines on stdout. A line about a request carries its `requestId`, passed by the
 * code that logs it (no async context: its promise hooks would cost every request, on Node 20).
 */
export let log: Logger = pino(options);

/**
 * The logger of the one line per request: a child of `log` (its destination, and its level, which
 * createApp sets later) without the redaction. That line has a fixed shape that holds no credential,
 * while the redaction's wildcard paths walk every field of every line (a third of the line's cost).
 */
const unredacted = (parent: Logger) => parent.child({}, { redact: [] });
export let requestLog: Logger = unredacted(log);

/**
 * The one line per request, exactly as `requestLog.info(fields, msg)` writes it (level, time, the fields
 * in order, msg), built with one JSON.stringify of the flat record instead of pino's walk over its keys:
 * the line cost a small request about a twentieth of its CPU that way.
 */
export function writeRequestLine(fields: object, msg: string): void {
  if (!requestLog.isLevelEnabled('info')) return;
  const destination = (requestLog as unknown as Record<symbol, { write(line: string): unknown }>)[pino.symbols.streamSym]!;
  destination.write(`{"level":30,"time":${Date.now()},${JSON.stringify(fields).slice(1, -1)},"msg":${JSON.stringify(msg)}}\n`);
}

/**
 * stdout, written in blocks of at least 4 KB, and at least every 100 ms, rather than line by line: one
 * write per request cost ~5% of a small request's CPU. A quiet instance's line is out within 100 ms;
 * what is left when the process stops is written by flushLog.
 */
const stdout = () => pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 100 });

type Destination = { flushSync?(): void };

/**
 * Resolves once every line logged so far is on stdout: main.ts waits for it before process.exit, which
 * would cut off a block still being written in the background (pino's own exit hook writes only what is
 * not): with a log collector that reads slowly, about 20 lines of the last 1,500 were lost that way.
 * Bounded, as the requests' grace is, should the callback never come.
 */
export function flushLog(ms = 10_000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    // The callback comes once the block being written is out (an error only says the pipe cannot fsync);
    // lines logged meanwhile, below a block, are then written at once.
    log.flush(() => {
      clearTimeout(timer);
      try {
        (log as unknown as Record<symbol, Destination>)[pino.symbols.streamSym]?.flushSync?.();
      } catch {
        // A destination already closed has nothing more to write.
      }
      resolve();
    });
  });
}

/** Called once by main.ts: people at a terminal get pretty lines, machines get JSON. */
export function configureLog({ level, pretty }: { level: string; pretty: boolean }): void {
  log = pretty
    ? pino({ ...options, level }, pino.transport({ target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } }))
    : pino({ ...options, level }, stdout());
  requestLog = unredacted(log);
}

