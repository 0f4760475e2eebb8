/**
 * gql.tada's `graphql()` for this schema. initGraphQLTada (rather than the ts-plugin's global setup) lets
 * plain `tsc` check the documents, and maps SafeInt, which the introspection only knows as a custom
 * scalar, to the JSON number it is on the wire.
 */
import { initGraphQLTada } from 'gql.tada';
import type { introspection } from './generated/graphql-env.js';

export const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: { SafeInt: number };
}>();

export type { ResultOf, VariablesOf } from 'gql.tada';
