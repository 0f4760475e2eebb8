import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { completeOpenApi } from './rest/openapi.js';
import { sofaDocumentOf } from './rest/surface.js';

export { sofaDocumentOf };

/** The SDL as committed in schema/schema.graphql. */
export function printSdl(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

/** The OpenAPI document as served at /v1/openapi.json and committed in schema/openapi.json. */
export function openApiJson(schema: GraphQLSchema, sofaDocument = sofaDocumentOf(schema)): string {
  return `${JSON.stringify(completeOpenApi(sofaDocument, schema), null, 2)}\n`;
}
