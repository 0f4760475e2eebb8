import { describe, expect, it } from 'vitest';
import { checkDocumentNesting } from '../../src/graphql/document-nesting.js';
import { MAX_NESTING, nestsDeeper, textNestsDeeper } from '../../src/pipeline/nesting.js';

const arrays = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const objects = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
const refusal = `The document nests deeper than ${MAX_NESTING} levels of braces, brackets and parentheses`;
// V8's JSON.parse does not recurse: a million levels parse.
const measures: [string, (text: string, limit?: number) => boolean][] = [
  ['nestsDeeper (parsed)', (text, limit) => nestsDeeper(JSON.parse(text), limit)],
  ['textNestsDeeper', textNestsDeeper],
];

describe.each(measures)('%s', (_, deeper) => {
  it.each([['arrays', arrays], ['objects', objects]])('counts %s up to the limit, and past it at any depth', (__, nest) => {
    expect(deeper(nest(MAX_NESTING))).toBe(false);
    expect(deeper(nest(MAX_NESTING + 1))).toBe(true);
    expect(deeper(nest(1_000_000))).toBe(true);
    expect(deeper(nest(3), 2)).toBe(true);
  });

  it('counts no bracket of a string, escaped quotes included', () => {
    expect(deeper(JSON.stringify({ text: '['.repeat(5_000), quoted: '"\\"[[[' }))).toBe(false);
    expect(deeper(`[${JSON.stringify('\\"')},${arrays(MAX_NESTING)}]`)).toBe(true);
  });

  it('counts each branch on its own: siblings do not add up, a deep one anywhere counts', () => {
    expect(deeper(`[${Array.from({ length: 1_000 }, () => arrays(MAX_NESTING - 1)).join(',')}]`)).toBe(false);
    expect(deeper(`[1,{"a":[]},{"b":[{"c":${arrays(MAX_NESTING - 3)}}]},[]]`)).toBe(true);
    expect(deeper('"text"') || deeper('null') || deeper('{}')).toBe(false);
  });
});

describe('checkDocumentNesting', () => {
  it.each([
    ['a list value', (n: number) => `{ nodes(ids: ${arrays(n)}) { nodeId } }`],
    ['an object value', (n: number) => `{ pets(x: ${'{a: '.repeat(n)}1${'}'.repeat(n)}) { id } }`],
    ['selections', (n: number) => `{ ${'a { '.repeat(n)}id${' }'.repeat(n)} }`],
  ])('refuses %s nested past the limit, whatever the token limit', (_, nest) => {
    expect(() => checkDocumentNesting(nest(MAX_NESTING - 2), 100_000)).not.toThrow();
    expect(() => checkDocumentNesting(nest(MAX_NESTING + 1), 100_000)).toThrow(refusal);
    expect(() => checkDocumentNesting(nest(50_000), 2_000)).toThrow(refusal);
  });

  it('counts no bracket of a string, block string or comment', () => {
    const text = `{ pets(status: "${'['.repeat(500)}") { id } } # ${'{'.repeat(500)}\n{ a(b: """${'('.repeat(500)}""") }`;
    expect(() => checkDocumentNesting(text, 100_000)).not.toThrow();
  });

  it('leaves a syntax error to the parser', () => {
    expect(() => checkDocumentNesting(`{ a(b: "${'{'.repeat(500)}`, 100_000)).not.toThrow();
  });
});
