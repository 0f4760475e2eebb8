/**
 * `npx tsx test/bench/node-estimates.ts`: the node estimate (graphql/node-estimate.ts) of the schema's
 * real operations, against which GRAPHQL_MAX_NODES is chosen: GraphiQL's introspection query, every REST
 * route's operation, large legitimate GraphQL queries, and the fan-out documents the limit stops.
 */
import { getIntrospectionQuery, getOperationAST, parse, type DocumentNode } from 'graphql';
import { nodeEstimator } from '../../src/graphql/node-estimate.js';
import { schema } from '../../src/schema/index.js';
import { introspectionFanOut, storeFanOut } from '../support/fan-out.js';
import { restOperations } from '../support/rest-operations.js';
import { LARGEST_QUERIES } from '../support/large-queries.js';

const estimator = nodeEstimator(schema);
const estimate = (document: DocumentNode, variables?: Record<string, unknown>) =>
  estimator.operation(document, getOperationAST(document)!, variables);
const row = (label: string, nodes: number) => console.log(`${nodes.toLocaleString('en-US').padStart(20)}  ${label}`);

row('GraphiQL\'s introspection query', estimate(parse(getIntrospectionQuery({
  descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true,
})), {}));
const rest = restOperations(schema).map(({ route, document }) => ({ route, nodes: estimate(document) }));
for (const { route, nodes } of rest.sort((a, b) => b.nodes - a.nodes)) row(`REST ${route} (lists at their most)`, nodes);
for (const [label, query] of Object.entries(LARGEST_QUERIES)) row(label, estimate(parse(query), {}));
row('the introspection fan-out of issue 30', estimate(parse(introspectionFanOut()), {}));
row('the store fan-out of issue 30', estimate(parse(storeFanOut()), {}));
