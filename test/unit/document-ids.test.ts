import { describe, expect, it } from 'vitest';
import { documentKey, manifestKey, persistedQueryHash, sha256Hex } from '../../src/graphql/document-ids.js';

const HASH = sha256Hex('{ pets { id } }');

describe('documentKey', () => {
  it.each([
    [`sha256:${HASH}`, HASH],
    [HASH, HASH],
    ['5f1c2e0d9b8a7c6e5f4d3c2b1a0f9e8d', '5f1c2e0d9b8a7c6e5f4d3c2b1a0f9e8d'],
    ['ListPets.v2', 'ListPets.v2'],
  ])('reads %s as the manifest key %s', (id, key) => {
    expect(documentKey(id)).toBe(key);
  });

  it.each([[5], [''], ['sha256:'], [`sha256:${HASH.toUpperCase()}`], [`sha256:${HASH}0`], ['a b'], ['a'.repeat(129)], [null], [{}]])(
    'refuses %j with 400 BAD_REQUEST', (id) => {
      expect(() => documentKey(id)).toThrow(expect.objectContaining({ extensions: { code: 'BAD_REQUEST', status: 400 } }));
      if (typeof id === 'string') expect(manifestKey(id)).toBeUndefined();
    });
});

describe('persistedQueryHash', () => {
  it('reads Apollo\'s extension, and nothing when it is absent', () => {
    expect(persistedQueryHash({ persistedQuery: { version: 1, sha256Hash: HASH } })).toBe(HASH);
    expect(persistedQueryHash({ clientLibrary: { name: '@apollo/client' } })).toBeUndefined();
    expect(persistedQueryHash(undefined)).toBeUndefined();
  });

  it.each([
    [{ version: 2, sha256Hash: HASH }], [{ sha256Hash: HASH }], [{ version: 1 }], [{ version: 1, sha256Hash: 'abc' }], [null], ['x'], [[HASH]],
  ])('refuses %j with 400 BAD_REQUEST', (persistedQuery) => {
    expect(() => persistedQueryHash({ persistedQuery })).toThrow(expect.objectContaining({ extensions: { code: 'BAD_REQUEST', status: 400 } }));
  });
});
