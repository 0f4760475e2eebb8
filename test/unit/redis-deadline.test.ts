import { afterEach, describe, expect, it, vi } from 'vitest';
import { log } from '../../src/log.js';
import { deadline, fallbackReport, RedisDeadlineError } from '../../src/redis/deadline.js';

afterEach(() => { vi.restoreAllMocks(); });

describe('deadline', () => {
  it('passes an answer or an error that comes in time, and gives up on one that does not', async () => {
    const bound = deadline(50);
    await expect(bound(Promise.resolve('OK'))).resolves.toBe('OK');
    await expect(bound(Promise.reject(new Error('NOSCRIPT')))).rejects.toThrow('NOSCRIPT');
    const started = performance.now();
    await expect(bound(new Promise(() => undefined))).rejects.toBeInstanceOf(RedisDeadlineError);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('fallbackReport', () => {
  it('counts every fallback with its reason, and logs the first of a spell and the recovery, once each, per path', () => {
    const warn = vi.spyOn(log, 'warn').mockImplementation(() => undefined);
    const info = vi.spyOn(log, 'info').mockImplementation(() => undefined);
    const counted: string[] = [];
    const report = fallbackReport((path, reason) => counted.push(`${path}:${reason}`));
    report.succeeded('limits');
    report.failed('limits', new RedisDeadlineError(500));
    report.failed('limits', new Error('CLUSTERDOWN'));
    report.failed('stream_slots', new Error('gone'));
    expect(counted).toEqual(['limits:deadline', 'limits:error', 'stream_slots:error']);
    expect(warn.mock.calls.map(([fields]) => (fields as { path: string }).path)).toEqual(['limits', 'stream_slots']);
    report.succeeded('limits');
    report.succeeded('limits');
    expect(info.mock.calls.map(([fields]) => (fields as { path: string }).path)).toEqual(['limits']);
    report.failed('limits', new Error('again'));
    expect(warn).toHaveBeenCalledTimes(3);
  });
});
