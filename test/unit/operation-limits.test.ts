import { getIntrospectionQuery, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { checkOperation, parseWithin } from '../../src/graphql/operation-limits.js';
import type { OperationLimits } from '../../src/config.js';

const limits: OperationLimits = { maxRootFields: 20, maxDepth: 8, maxTokens: 2_000, maxDirectives: 10, maxNodes: 50_000, maxBatch: 10 };
const check = (query: string, operationName?: string, own = limits) => checkOperation(parse(query), operationName, own);
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return { message: (error as Error).message, extensions: (error as { extensions?: object }).extensions };
  }
  throw new Error('expected a refusal');
};

describe('the cost of an operation', () => {
  it.each([
    ['{ pets { id } }', 1],
    ['{ a: pets { id } b: pets { id } }', 2],
    ['{ pets { id } pets { name } }', 1],
    ['{ a: pets { id } ...More }\nfragment More on Query { b: pets { id } c: pet(petId: 1) { id } }', 3],
    ['{ ... on Query { a: pets { id } } b: pets { id } }', 2],
    ['mutation { a: createPet(input: {name: "x", categoryId: 1}) { id } b: createPet(input: {name: "y", categoryId: 1}) { id } }', 2],
    ['{ __typename }', 1],
  ])('%s costs %i', (query, cost) => {
    expect(check(query).cost).toBe(cost);
  });
});

describe('the operation limits', () => {
  const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: pets { id }`).join(' ')} }`;
  const nested = (levels: number) => `{ ${'a { '.repeat(levels - 1)}b${' }'.repeat(levels - 1)} }`;
  const directives = (n: number) => `{ pets { ${Array.from({ length: n }, (_, i) => `f${i}: id @include(if: true)`).join(' ')} } }`;

  it('takes up to 20 root fields and refuses 21, naming the limit', () => {
    expect(check(aliases(20)).cost).toBe(20);
    expect(refusal(() => check(aliases(21)))).toEqual({
      message: 'The operation selects 21 root fields; the limit is 20 per operation, aliases included',
      extensions: { code: 'BAD_REQUEST', status: 400 },
    });
  });

  it('counts root fields brought in by fragments', () => {
    const query = `{ ...F } fragment F on Query { ${Array.from({ length: 21 }, (_, i) => `a${i}: pets { id }`).join(' ')} }`;
    expect(refusal(() => check(query)).message).toContain('21 root fields');
  });

  it('takes depth 8 and refuses depth 9, through fragments too', () => {
    expect(() => check(nested(8))).not.toThrow();
    expect(refusal(() => check(nested(9))).message).toBe('The operation is 9 levels deep; the limit is 8');
    const viaFragment = `{ a { ...F } } fragment F on X { ${'b { '.repeat(7)}c${' }'.repeat(7)} }`;
    expect(refusal(() => check(viaFragment)).message).toContain('9 levels deep');
  });

  it('takes 10 directives and refuses 11, counting each use of a fragment', () => {
    expect(() => check(directives(10))).not.toThrow();
    expect(refusal(() => check(directives(11))).message).toBe('The operation uses 11 directives; the limit is 10');
    const spread = '{ pets { ...F ...F } } fragment F on Pet { a: id @skip(if: false) b: id @skip(if: false) c: id @skip(if: false) d: id @skip(if: false) e: id @skip(if: false) f: id @skip(if: false) }';
    expect(refusal(() => check(spread)).message).toContain('12 directives');
  });

  it('refuses a document past the token limit before parsing the rest', () => {
    const big = aliases(600);
    expect(refusal(() => parseWithin(big, limits))).toEqual({
      message: 'The document has more than 2000 tokens; the limit is 2000',
      extensions: { code: 'BAD_REQUEST', status: 400 },
    });
    expect(() => parseWithin(aliases(20), limits)).not.toThrow();
  });

  it('lets the standard introspection query through: ofType unwraps a type and adds no depth', () => {
    const query = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true });
    expect(() => parseWithin(query, limits)).not.toThrow();
    expect(check(query).cost).toBe(1);
    expect(refusal(() => check('{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }')).message)
      .toContain('10 levels deep');
  });

  it('measures each fragment once: a chain that doubles at every step costs no time, and its directives add up', () => {
    const chain = Array.from({ length: 40 }, (_, i) => `fragment F${i} on Pet { ...F${i + 1} ...F${i + 1} }`).join('\n');
    const query = `{ pets { ...F0 } }\n${chain}\nfragment F40 on Pet { id @include(if: true) }`;
    const started = performance.now();
    expect(refusal(() => check(query)).message).toMatch(/uses \d+ directives/);
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('survives fragment cycles (validation reports them later)', () => {
    expect(check('{ pets { ...A } } fragment A on Pet { id ...B } fragment B on Pet { name ...A }').cost).toBe(1);
  });

  it('selects the operation by name, and says what is wrong when it cannot', () => {
    const two = 'query A { a: pets { id } } query B { b: pets { id } c: pets { id } }';
    expect(check(two, 'B').cost).toBe(2);
    expect(refusal(() => check(two)).message).toContain('"operationName"');
    expect(refusal(() => check(two, 'C')).message).toBe('The document has no operation named "C"');
    expect(refusal(() => check('fragment F on Query { pets { id } }')).message).toBe('The document has no operation to run');
  });

  it('reads its limits from the settings', () => {
    const tight = { maxRootFields: 1, maxDepth: 2, maxTokens: 100, maxDirectives: 0, maxNodes: 10_000, maxBatch: 1 };
    expect(refusal(() => check(aliases(2), undefined, tight)).message).toContain('the limit is 1 per operation');
    expect(refusal(() => check('{ pets { id @skip(if: false) } }', undefined, tight)).message).toContain('the limit is 0');
  });
});
