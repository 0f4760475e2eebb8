import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import type { OpenAPIV3 } from 'openapi-types';
import { loadConfig } from './config.js';
import { completeOpenApi } from './rest/openapi.js';
import { createRest } from './rest/surface.js';
import { fieldUses } from './schema/requirements.js';

/** The SDL as committed in schema/schema.graphql. */
export function printSdl(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

/** The OpenAPI document as served at /v1/openapi.json and committed in schema/openapi.json. */
/** SOFA's own OpenAPI document for the schema, before completion, from a REST surface built for it alone. */
export function sofaDocumentOf(schema: GraphQLSchema): OpenAPIV3.Document {
  return createRest(schema, () => ({}), loadConfig({}).graphql, fieldUses(schema)).sofaDocument;
}

export function openApiJson(schema: GraphQLSchema, sofaDocument = sofaDocumentOf(schema)): string {
  return `${JSON.stringify(completeOpenApi(sofaDocument, schema), null, 2)}\n`;
}
