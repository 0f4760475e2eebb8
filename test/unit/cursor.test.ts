import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCursors } from '../../src/domain/cursor.js';

const hmac = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest().subarray(0, 16).toString('base64url');

describe('cursors', () => {
  // A rolling deploy mixes builds: a cursor signed by one must verify on the other.
  it.each([
    ['a short secret', 's3cret'],
    ['a 64-byte secret', 'k'.repeat(64)],
    ['a secret longer than a block', 'a long secret '.repeat(20)],
    ['a multi-byte secret', 'clé 🔑'.repeat(9)],
  ])('signs exactly as HMAC-SHA256 does, with %s', (_, secret) => {
    const cursors = createCursors(secret);
    for (const afterId of [1, 20, 9_007_199_254_740_991]) {
      const cursor = cursors.make({ list: 'pets', status: afterId === 20 ? 'sold' : undefined }, afterId);
      const [payload, signature] = cursor.split('.');
      expect(signature).toBe(hmac(secret, payload!));
      expect(cursors.read({ list: 'pets', status: afterId === 20 ? 'sold' : undefined }, cursor)).toBe(afterId);
    }
  });

  it('refuses a cursor signed with another secret', () => {
    const cursor = createCursors('one').make({ list: 'pets', status: undefined }, 5);
    expect(() => createCursors('two').read({ list: 'pets', status: undefined }, cursor)).toThrow('"cursor" was not issued by this service');
  });
});
