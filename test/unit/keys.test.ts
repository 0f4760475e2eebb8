import { describe, expect, it } from 'vitest';
import { bearerToken, checksumHolds, displayPrefix, generateKey, hashKey, KEY_PREFIX, looksLikeKey } from '../../src/auth/keys.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** The key with its character at `i` replaced by another of the alphabet. */
const changedAt = (key: string, i: number) => key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);

describe('generateKey', () => {
  const keys = Array.from({ length: 200 }, generateKey);

  it('makes keys of the prefix, 43 base62 characters and a 6-character checksum', () => {
    expect(KEY_PREFIX).toBe('ask_');
    for (const key of keys) expect(key).toMatch(/^ask_[0-9A-Za-z]{49}$/);
  });

  it('draws the secret from the whole alphabet, for at least 128 random bits', () => {
    const secrets = keys.map((key) => key.slice(KEY_PREFIX.length, -6));
    const used = new Set(secrets.flatMap((secret) => [...secret]));
    expect([...used].sort().join('')).toBe([...ALPHABET].sort().join(''));
    expect(secrets[0]!.length * Math.log2(used.size)).toBeGreaterThanOrEqual(128);
  });

  it('never makes the same key twice', () => {
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('makes keys that look like keys and whose checksum holds', () => {
    expect(keys.filter((key) => !looksLikeKey(key) || !checksumHolds(key))).toEqual([]);
  });
});

describe('checksumHolds', () => {
  const key = generateKey();

  it('fails for a key with any one character changed, its prefix and checksum included', () => {
    const holding = Array.from({ length: key.length }, (_, i) => changedAt(key, i)).filter(checksumHolds);
    expect(holding).toEqual([]);
  });

  it('holds for a key from before checksums, which has none', () => {
    expect(checksumHolds(key.slice(0, 47))).toBe(true);
  });

  it('fails for a key with its checksum cut short', () => {
    expect(checksumHolds(key.slice(0, 50))).toBe(false);
  });
});

describe('looksLikeKey', () => {
  const key = generateKey();
  it.each([
    ['a new key', key, true],
    ['a key from before checksums', key.slice(0, 47), true],
    ['a key of another prefix', `xsk_${key.slice(4)}`, false],
    ['a key without its prefix', key.slice(4), false],
    ['a key one character short', key.slice(0, 52), false],
    ['a key one character long', `${key}a`, false],
    ['a key with a dash inside', `${key.slice(0, 10)}-${key.slice(11)}`, false],
    ['a key with a trailing space', `${key} `, false],
    ['the empty string', '', false],
  ])('says %s is %s', (_, value, expected) => {
    expect(looksLikeKey(value)).toBe(expected);
  });
});

describe('hashKey and displayPrefix', () => {
  it('hashes with SHA-256, in lower-case hex', () => {
    expect(hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hashes a key the same way every time, and another key otherwise', () => {
    const key = generateKey();
    expect(hashKey(key)).toBe(hashKey(`${key}`));
    expect(hashKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKey(changedAt(key, 10))).not.toBe(hashKey(key));
  });

  it('shows the prefix and the first 8 characters of the secret', () => {
    expect(displayPrefix('ask_0123456789abcdef')).toBe('ask_01234567');
  });
});

describe('bearerToken', () => {
  it.each<[string | null, string | undefined]>([
    ['Bearer ask_abc', 'ask_abc'],
    ['bearer ask_abc', 'ask_abc'],
    ['BEARER ask_abc', 'ask_abc'],
    ['bEaReR ask_abc', 'ask_abc'],
    ['Bearer   ask_abc', 'ask_abc'],
    ['Bearer ask_abc  ', 'ask_abc'],
    [null, undefined],
    ['', undefined],
    ['Bearer', undefined],
    ['Bearer ', undefined],
    ['Bearerask_abc', undefined],
    ['Basic dXNlcjpwYXNz', undefined],
    ['Bearer ask_abc extra', undefined],
    [' Bearer ask_abc', undefined],
    ['Bearer\task_abc', undefined],
  ])('reads %j as %j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });
});
