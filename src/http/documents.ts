import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { loadConfig } from '../config.js';
import { completeOpenApi } from './openapi.js';
import { createRest } from './rest.js';

/** The SDL as committed in schema/schema.graphql. */
export function printSdl(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

/** The OpenAPI document as served at /v1/openapi.json and committed in schema/openapi.json. */
export function openApiJson(
  schema: GraphQLSchema, sofaDocument = createRest(schema, () => ({}), loadConfig({}).graphql).sofaDocument,
): string {
  return `${JSON.stringify(completeOpenApi(sofaDocument, schema), null, 2)}\n`;
}
