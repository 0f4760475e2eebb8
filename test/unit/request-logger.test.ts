import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { configureLog, log, requestLog, writeRequestLine } from '../../src/log.js';

const level = log.level;
afterEach(() => { log.level = level; vi.restoreAllMocks(); });

/** The lines a logger writes, read where pino hands them to its destination (shared by its children). */
function linesOf(write: () => void): Record<string, unknown>[] {
  const stream = (log as unknown as Record<symbol, { write(line: string): boolean }>)[pino.symbols.streamSym]!;
  const lines: string[] = [];
  vi.spyOn(stream, 'write').mockImplementation(((line: string) => { lines.push(line); return true; }) as never);
  write();
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the request line\'s logger', () => {
  it('follows the level the service is given, however late', () => {
    log.level = 'warn';
    expect(requestLog.isLevelEnabled('info')).toBe(false);
    log.level = 'info';
    expect(requestLog.isLevelEnabled('info')).toBe(true);
  });

  it('writes its fixed fields as they are, while every other line keeps the redaction', () => {
    log.level = 'info';
    const [request, other] = linesOf(() => {
      requestLog.info({ requestId: 'r-1', keyPrefix: 'ask_abc', status: 200 }, 'GET /v1/pets 200');
      log.info({ key: 'ask_secret', headers: { authorization: 'Bearer ask_secret' } }, 'something else');
    });
    expect(request).toMatchObject({ requestId: 'r-1', keyPrefix: 'ask_abc', status: 200, msg: 'GET /v1/pets 200' });
    expect(other).toMatchObject({ key: '[redacted]', headers: { authorization: '[redacted]' } });
  });

  it('writes the request line as pino writes the same fields and message, key for key', () => {
    log.level = 'info';
    const fields = { requestId: 'r-2', method: 'GET', path: '/v1/pets/"x"', route: '/v1/pets/:petId', status: 404, durationMs: 1.5, keyPrefix: undefined, client: '10.0.0.1' };
    const [byPino, byUs] = linesOf(() => {
      requestLog.info(fields, 'GET /v1/pets/"x" 404');
      writeRequestLine(fields, 'GET /v1/pets/"x" 404');
    });
    expect(Object.keys(byUs!)).toEqual(Object.keys(byPino!));
    expect({ ...byUs, time: 0 }).toEqual({ ...byPino, time: 0 });
    expect(Math.abs(Number(byUs!.time) - Number(byPino!.time))).toBeLessThan(1_000);
  });

  it('writes no request line below its level', () => {
    log.level = 'warn';
    expect(linesOf(() => writeRequestLine({ status: 200 }, 'GET / 200'))).toEqual([]);
  });

  // Last: it swaps this file's logger for one on stdout.
  it('is made again with the logger main.ts configures, so it writes where and at the level that one does', () => {
    const before = requestLog;
    configureLog({ level: 'error', pretty: false });
    expect(requestLog).not.toBe(before);
    expect(requestLog.level).toBe('error');
    expect(requestLog[pino.symbols.streamSym as never]).toBe(log[pino.symbols.streamSym as never]);
  });
});
