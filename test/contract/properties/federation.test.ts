import { astFromValueUntyped } from '@graphql-tools/utils';
import fc from 'fast-check';
import { print } from 'graphql';
import { describe, expect, it } from 'vitest';
import { globalId } from '../../../src/domain/global-ids.js';
import { checkContract } from '../../support/contract-checks.js';
import { fuzzTarget } from '../../support/fuzz-target.js';
import { fuzzParameters } from '../../support/fuzz.js';

const target = fuzzTarget();

/** Ids that exist (the first few pets and orders the test makes), that do not, and that are no ids at all. */
const id = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 5 }) },
  { weight: 2, arbitrary: fc.constantFrom(0, -1, 1.5, 2 ** 53, Number.MAX_SAFE_INTEGER, 9_000_000_000) },
  { weight: 2, arbitrary: fc.oneof(fc.string(), fc.constant(null), fc.boolean(), fc.array(fc.nat()), fc.dictionary(fc.string(), fc.nat())) },
);
const typename = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('Pet', 'Order') },
  { weight: 2, arbitrary: fc.constantFrom('Query', 'Mutation', 'WebhookEndpoint', 'Node', '_Entity', '_Service', '__proto__', 'constructor', 'toString', '__Schema', 'pet') },
  { weight: 1, arbitrary: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string())) },
);
const nodeId = fc.oneof(
  fc.tuple(fc.constantFrom('Pet', 'Order', 'WebhookEndpoint') as fc.Arbitrary<'Pet' | 'Order' | 'WebhookEndpoint'>, fc.integer({ min: 1, max: 5 })).map(([t, n]) => globalId(t, n)),
  fc.string({ maxLength: 60 }), fc.integer(),
);

/** One representation: mostly well-formed, then a key of the wrong type, missing, doubled, or no object at all. */
const representation = fc.oneof(
  { weight: 5, arbitrary: fc.record({ __typename: typename, id }) },
  { weight: 2, arbitrary: fc.record({ __typename: typename, nodeId }) },
  { weight: 1, arbitrary: fc.record({ __typename: typename, id, nodeId }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.record({ __typename: typename, extra: fc.jsonValue() }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/** A few, a router's batch around the cap, or thousands (past the body limit too). */
const representations = fc.oneof(
  { weight: 8, arbitrary: fc.array(representation, { maxLength: 20 }) },
  { weight: 1, arbitrary: fc.tuple(representation, fc.integer({ min: 480, max: 520 })).map(([r, n]) => Array.from({ length: n }, () => r)) },
  { weight: 1, arbitrary: fc.tuple(fc.record({ __typename: fc.constant('Pet'), id: fc.integer({ min: 1, max: 5 }) }), fc.integer({ min: 501, max: 5_000 })).map(([r, n]) => Array.from({ length: n }, () => r)) },
);

const SELECTIONS = [
  '__typename', '... on Pet { id name status }', '... on Order { id status pet { name } }', '... on Pet { nodeId orders { id } }',
  '__typename ... on Node { nodeId }', '... on WebhookEndpoint { id }', 'nonsense',
];

const call = fc.record({
  representations,
  selection: fc.constantFrom(...SELECTIONS),
  /** As a variable (what routers send), a literal in the document, or a variable that is no list. */
  as: fc.constantFrom('variable', 'variable', 'variable', 'literal', 'odd variable'),
  odd: fc.jsonValue({ maxDepth: 2 }),
  who: fc.constantFrom('key', 'key', 'restricted', 'none'),
});

describe('the federation subgraph\'s _entities, any representations (property)', () => {
  it('never answers 5xx, every error in the GraphQL shape with our codes, each representation answered at its place or the request refused whole', async () => {
    for (let i = 0; i < 5; i += 1) {
      const pet = await target.api.post('/v1/pets', { name: `Entity ${i}`, categoryId: 1 });
      await target.api.post('/v1/store/orders', { petId: pet.body.id });
    }
    await fc.assert(fc.asyncProperty(call, async (req) => {
      const sent = req.as === 'odd variable' ? req.odd : req.representations;
      const literal = req.as === 'literal' ? print(astFromValueUntyped(req.representations)!) : undefined;
      const body = literal !== undefined
        ? { query: `{ _entities(representations: ${literal}) { ${req.selection} } }` }
        : { query: `query($r: [_Any!]!) { _entities(representations: $r) { ${req.selection} } }`, variables: { r: sent } };
      const auth: Record<string, string> = req.who === 'none' ? {} : { authorization: `Bearer ${req.who === 'key' ? target.key : target.restrictedKey}` };
      const response = await fetch(`${target.api.url}/graphql/subgraph`, {
        method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body),
      });
      const text = await response.text();
      const where = `${JSON.stringify(req).slice(0, 300)} → ${response.status} ${text.slice(0, 300)}`;
      checkContract('graphql', { status: response.status, headers: response.headers, text }, req);
      if (response.status !== 200) return;
      const answer = JSON.parse(text);
      // The node limit passed while it ran: no data, its error alone (checked above).
      if (answer.data === null) return;
      const entities = answer.data?._entities;
      expect(Array.isArray(entities), where).toBe(true);
      // A list is answered item for item; a variable that is no list is coerced into a list of one.
      const length = literal !== undefined ? req.representations.length : Array.isArray(sent) ? sent.length : 1;
      expect(entities.length, where).toBe(length);
      // Each error is one representation's, at its place, which is null.
      for (const error of answer.errors ?? []) {
        expect(error.path?.slice(0, 1), where).toEqual(['_entities']);
        if (error.path.length === 2) expect(entities[error.path[1]], where).toBeNull();
      }
    }), fuzzParameters);
  }, 600_000);

  it('then answers a well-formed call normally', async () => {
    const res = await fetch(`${target.api.url}/graphql/subgraph`, {
      method: 'POST', headers: { ...target.api.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Pet { id } } }', variables: { r: [{ __typename: 'Pet', id: 1 }] } }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { _entities: [{ id: 1 }] } });
  });
});
