import { pino } from 'pino';
import { onTestFinished, vi } from 'vitest';
import { log, requestLog } from '../../src/log.js';

/** One access-log line as written: pino's level and time, the request's fields, msg. */
export type RequestLine = Record<string, unknown> & { readonly requestId?: string; readonly status: number; readonly sampled?: number };

/**
 * The access-log lines written from now on in this test, read where they reach the log's destination (the
 * request line skips pino's serialiser, not its destination), at level info (the tests' servers are
 * silent) until the test ends. `quiet` (the default) keeps every line off the test's output.
 */
export function requestLines({ quiet = true } = {}): () => RequestLine[] {
  const level = log.level;
  log.level = 'info';
  onTestFinished(() => { log.level = level; });
  const destination = (requestLog as unknown as Record<symbol, { write(line: string): boolean }>)[pino.symbols.streamSym]!;
  const lines: string[] = [];
  const original = destination.write.bind(destination);
  vi.spyOn(destination, 'write').mockImplementation(((line: string) => {
    lines.push(line);
    return quiet ? true : original(line);
  }) as never);
  return () => lines.map((line) => JSON.parse(line) as RequestLine).filter((line) => typeof line.status === 'number' && 'route' in line);
}
