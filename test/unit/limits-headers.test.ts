import { parseList } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { policyField, rateLimitHeaders, refusalHeaders, type WindowState } from '../../src/limits/headers.js';

const NOW = 1_700_000_000_000; // a whole second
const minute = (remaining: number, msBeforeReset = 30_000): WindowState => ({ name: 'minute', limit: 60, seconds: 60, remaining, msBeforeReset });
const day = (remaining: number, msBeforeReset = 3_600_000): WindowState => ({ name: 'day', limit: 1000, seconds: 86_400, remaining, msBeforeReset });
const x = (headers: Record<string, string>) =>
  [headers['X-RateLimit-Limit'], headers['X-RateLimit-Remaining'], headers['X-RateLimit-Reset']];

describe('policyField', () => {
  it('names each window with its quota and length, as a Structured Fields list', () => {
    const field = policyField([minute(0), day(0)]);
    expect(field).toBe('"minute";q=60;w=60, "day";q=1000;w=86400');
    expect(parseList(field).map(([name, params]) => [name, Object.fromEntries(params)]))
      .toEqual([['minute', { q: 60, w: 60 }], ['day', { q: 1000, w: 86400 }]]);
  });
});

describe('rateLimitHeaders', () => {
  it.each<[string, WindowState[], string[]]>([
    ['the only window', [minute(59)], ['60', '59', '1700000030']],
    ['the minute, when it has fewer left', [minute(10), day(500)], ['60', '10', '1700000030']],
    ['the day, when it has fewer left', [minute(50), day(3)], ['1000', '3', '1700003600']],
    ['the shorter window on a tie', [minute(7), day(7)], ['60', '7', '1700000030']],
    ['the shorter window when both are spent', [minute(0), day(0)], ['60', '0', '1700000030']],
  ])('describes %s in X-RateLimit-*', (_, windows, expected) => {
    expect(x(rateLimitHeaders(windows, NOW))).toEqual(expected);
  });

  it('rounds the reset up to the next whole second', () => {
    expect(rateLimitHeaders([minute(1, 1)], NOW)['X-RateLimit-Reset']).toBe('1700000001');
    expect(rateLimitHeaders([minute(1, 1_000)], NOW + 1)['X-RateLimit-Reset']).toBe('1700000002');
  });

  it('describes every window in the IETF fields', () => {
    expect(rateLimitHeaders([minute(10, 29_001), day(500, 3_600_000)], NOW)).toEqual({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '10',
      'X-RateLimit-Reset': '1700000030',
      'RateLimit-Policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
      RateLimit: '"minute";r=10;t=30, "day";r=500;t=3600',
    });
  });

  it('writes RateLimit as a Structured Fields list, never a negative time', () => {
    const { RateLimit } = rateLimitHeaders([minute(10, -5), day(500, 1)], NOW);
    expect(parseList(RateLimit!).map(([name, params]) => [name, Object.fromEntries(params)]))
      .toEqual([['minute', { r: 10, t: 0 }], ['day', { r: 500, t: 1 }]]);
  });
});

describe('refusalHeaders', () => {
  it('says nothing remains in the refusing window until the retry', () => {
    expect(refusalHeaders(day(0), [minute(5), day(0)], 12_300, NOW)).toEqual({
      'X-RateLimit-Limit': '1000',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '1700000013',
      'Retry-After': '13',
      'RateLimit-Policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
      RateLimit: '"day";r=0;t=13',
    });
  });

  it.each([[0, '1'], [1, '1'], [999, '1'], [1_000, '1'], [1_001, '2'], [-500, '1']])(
    'asks to retry after whole seconds, at least 1 (%i ms → %s)', (ms, seconds) => {
      const headers = refusalHeaders(minute(0), [minute(0)], ms, NOW);
      expect([headers['Retry-After'], headers.RateLimit]).toEqual([seconds, `"minute";r=0;t=${seconds}`]);
    },
  );
});
