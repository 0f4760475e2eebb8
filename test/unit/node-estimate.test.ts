import {
  execute, getIntrospectionQuery, getNamedType, getOperationAST, isListType, isNonNullType, isObjectType, parse,
  type DocumentNode, type GraphQLType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { nodeEstimator } from '../../src/graphql/node-estimate.js';
import { checkNodes } from '../../src/graphql/operation-limits.js';
import { schema } from '../../src/schema/index.js';
import { introspectionFanOut, storeFanOut } from '../support/fan-out.js';
import { LARGEST_QUERIES } from '../support/large-queries.js';
import { restOperations } from '../support/rest-operations.js';

const estimator = nodeEstimator(schema);
const estimateOf = (document: DocumentNode, variables?: Record<string, unknown>) => estimator.operation(document, getOperationAST(document)!, variables);
const estimate = (query: string, variables: Record<string, unknown> = {}) => estimateOf(parse(query), variables);
const { operationLimits: limits } = loadConfig({});
const GRAPHIQL = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true });

/** Nodes of an answer as the estimate counts them: every field, and every item of a list. */
const nodesOf = (value: unknown): number => (Array.isArray(value) ? value.reduce((n: number, item) => n + 1 + nodesOf(item), 0)
  : value && typeof value === 'object' ? Object.values(value).reduce((n: number, field) => n + 1 + nodesOf(field), 0) : 0);

describe('the node estimate', () => {
  it.each([
    ['a field', '{ rateLimit { plan } }', 2],
    ['a list of the default page (20)', '{ pets { id name } }', 1 + 20 * 3],
    ['a list of a literal page', '{ pets(limit: 5) { id } }', 1 + 5 * 2],
    ['a page past the longest counted as the longest', '{ pets(limit: 5000) { id } }', 1 + 100 * 2],
    ['a nested list at its declared size (3 orders an animal)', '{ pets(limit: 2) { orders { id } } }', 1 + 2 * (2 + 3 * 2)],
    ['a connection: its page sizes its edges', '{ petsConnection(first: 3) { edges { node { id } } pageInfo { hasNextPage } } }', 1 + (1 + 3 * (1 + 2)) + 2],
    ['aliases, each', '{ a: pets(limit: 1) { id } b: pets(limit: 1) { id } }', 2 * 3],
    ['a fragment, where it is spread', '{ pets(limit: 10) { ...F ...F } } fragment F on Pet { id name }', 1 + 10 * 5],
    ['a fragment under a connection, at that connection\'s page', '{ a: petsConnection(first: 2) { ...C } b: petsConnection(first: 4) { ...C } } fragment C on PetConnection { edges { cursor } }',
      (1 + 1 + 2 * 2) + (1 + 1 + 4 * 2)],
    ['__typename and unknown fields, one each', '{ __typename nothing { here } }', 2],
  ])('counts %s', (_case, query, nodes) => {
    expect(estimate(query)).toBe(nodes);
  });

  it('reads a page size from the variables, then the variable\'s default, then the argument\'s', () => {
    const query = 'query ($n: Int = 7) { pets(limit: $n) { id } }';
    expect(estimate(query, { n: 3 })).toBe(1 + 3 * 2);
    expect(estimate(query, {})).toBe(1 + 7 * 2);
    expect(estimate(query, { n: null })).toBe(1 + 20 * 2);
    expect(estimate('query ($n: Int) { pets(limit: $n) { id } }', {})).toBe(1 + 20 * 2);
    // Not an integer (refused later, when the variables are coerced): counted at the longest page.
    expect(estimate(query, { n: 'many' })).toBe(1 + 100 * 2);
    // Variables not known yet (a REST route's operation): every page at its longest.
    expect(estimateOf(parse(query))).toBe(1 + 100 * 2);
  });

  it('counts nodes(ids:) by the ids it holds, literal or from the variables, at most 100', () => {
    expect(estimate('{ nodes(ids: ["a", "b", "c"]) { nodeId } }')).toBe(1 + 3 * 2);
    const query = 'query ($ids: [ID!]!) { nodes(ids: $ids) { nodeId ... on Pet { name } } }';
    // Each item counts the selection of every type it may be (here a Pet's two fields and nodeId).
    expect(estimate(query, { ids: ['a', 'b', 'c', 'd', 'e'] })).toBe(1 + 5 * 3);
    expect(estimate(query, { ids: Array.from({ length: 250 }, () => 'a') })).toBe(1 + 100 * 3);
    expect(estimateOf(parse(query))).toBe(1 + 100 * 3);
    expect(estimate('{ node(id: "a") { nodeId ... on Order { pet { name } } } }')).toBe(1 + 1 + 2);
  });

  it('bounds GraphiQL\'s introspection query from the schema\'s own sizes, above its real answer', async () => {
    const answer = await execute({ schema, document: parse(GRAPHIQL) });
    const nodes = estimate(GRAPHIQL);
    expect(nodes).toBeGreaterThanOrEqual(nodesOf(answer.data));
    expect(nodes).toBeLessThan(limits.maxNodes / 5);
  });

  it('puts the fan-out documents of issue 30 far past the limit, and the largest legitimate queries within it', () => {
    expect(estimate(introspectionFanOut())).toBeGreaterThan(1_000 * limits.maxNodes);
    expect(estimate(storeFanOut())).toBeGreaterThan(1_000 * limits.maxNodes);
    for (const query of Object.values(LARGEST_QUERIES)) expect(estimate(query)).toBeLessThanOrEqual(limits.maxNodes);
  });

  it('measures each fragment once: a chain that doubles at every step is estimated at once, and capped', () => {
    const chain = Array.from({ length: 60 }, (_, i) => `fragment F${i} on Pet { ...F${i + 1} ...F${i + 1} }`).join('\n');
    const started = performance.now();
    const nodes = estimate(`{ pets { ...F0 } }\n${chain}\nfragment F60 on Pet { id }`);
    expect(performance.now() - started).toBeLessThan(50);
    expect(nodes).toBe(1e12);
    expect(estimate('{ pets { ...A } } fragment A on Pet { id ...B } fragment B on Pet { name ...A }')).toBe(1 + 20 * 3);
  });

  it('refuses past the limit with 400 BAD_REQUEST naming the estimate and the limit', () => {
    expect(() => checkNodes(limits.maxNodes, limits)).not.toThrow();
    expect(() => checkNodes(1_234_567, limits)).toThrow(expect.objectContaining({
      message: 'The operation could return about 1,234,567 nodes (fields and list items, each list at its page size); the limit is 50,000',
      extensions: { code: 'BAD_REQUEST', status: 400 },
    }));
    expect(() => checkNodes(1e12, limits)).toThrow('could return more than 1,000,000,000,000 nodes');
  });

  it('knows the size of every list of the schema: a page argument, a declared size, or its connection\'s page', () => {
    const unwrap = (type: GraphQLType) => (isNonNullType(type) ? type.ofType : type);
    const sizedByParent = new Set<string>();
    const lists: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        const declared = field.extensions.listSize as { sizedFields?: string[] } | undefined;
        for (const sized of declared?.sizedFields ?? []) sizedByParent.add(`${getNamedType(field.type).name}.${sized}`);
        if (isListType(unwrap(field.type)) && !declared) lists.push(`${type.name}.${field.name}`);
      }
    }
    expect(lists.filter((list) => !sizedByParent.has(list))).toEqual([]);
  });
});

describe('the REST routes\' operations', () => {
  it('are each far within the node limit, every list at its longest page', () => {
    const estimates = Object.fromEntries(restOperations(schema).map(({ route, document }) => [route, estimateOf(document)]));
    expect(Object.keys(estimates)).toHaveLength(19);
    expect(Math.max(...Object.values(estimates))).toBeLessThan(limits.maxNodes / 20);
    expect(estimates['GET /pets']).toBe(1 + 100 * 5);
  });
});
