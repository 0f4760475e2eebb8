import { describe, expect, it } from 'vitest';
import { operationsIn } from '../../src/pages/graphiql-fetcher.js';

describe("GraphiQL fetcher's reading of operations", () => {
  it.each([
    ['{ pets { id } }', [], 1],
    ['query ListPets { pets { id } }', ['ListPets'], 1],
    ['query { pets { id } }', [], 1],
    ['query($l: Int) { pets(limit: $l) { id } }', [], 1],
    ['query A { a: pets { id } } mutation B($i: NewPet!) { createPet(input: $i) { id } }', ['A', 'B'], 2],
    ['fragment F on Pet { id } query Q { pets { ...F } }', ['Q'], 1],
    ['{ query: pets { id } }', [], 1],
    ['# query Commented { x }\n{ pets { name } }', [], 1],
    ['{ pet(id: 1) { name } } # query Stale', [], 1],
    ['mutation { createPet(input: { name: "query Fake {", categoryId: 1 }) { id } }', [], 1],
    ['query Q { pets(status: """block } query Z""") { id } }', ['Q'], 1],
    ['subscription Live { petEvents { id } }', ['Live'], 1],
    ['', [], 0],
  ])('%s', (query, names, count) => {
    expect(operationsIn(query)).toEqual({ names, count });
  });
});
