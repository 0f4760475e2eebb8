import { buildOperationNodeForField } from '@graphql-tools/utils';
import { Kind, OperationTypeNode, type DocumentNode, type GraphQLSchema } from 'graphql';
import { createSofa } from 'sofa-api';
import { restSchema } from '../../src/rest/rest-schema.js';
import { REST_ROUTES, routeKey } from '../../src/rest/routes.js';

/** The operation each REST route runs, built as SOFA builds it (sofa-api router.js) from the schema SOFA sees. */
export function restOperations(schema: GraphQLSchema): { route: string; document: DocumentNode }[] {
  const sofa = createSofa({ schema: restSchema(schema), basePath: '/v1' });
  return Object.entries(REST_ROUTES).map(([coordinate, route]) => {
    const [typeName, field] = coordinate.split('.') as [string, string];
    const operation = buildOperationNodeForField({
      kind: typeName === 'Query' ? OperationTypeNode.QUERY : OperationTypeNode.MUTATION,
      schema: sofa.schema, field, models: sofa.models, ignore: sofa.ignore, circularReferenceDepth: sofa.depthLimit,
    });
    return { route: routeKey(route), document: { kind: Kind.DOCUMENT, definitions: [operation] } };
  });
}
