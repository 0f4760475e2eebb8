/**
 * gql.tada's `graphql()` for this schema. initGraphQLTada (rather than the ts-plugin's global setup) lets
 * plain `tsc` check the documents, and maps SafeInt, DateTime, Cursor and EventType, which the introspection only
 * knows as custom scalars, to the JSON number and strings they are on the wire.
 */
import { initGraphQLTada } from 'gql.tada';
import type { introspection } from './generated/graphql-env.js';

export const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: {
    SafeInt: number; DateTime: string; Cursor: string;
    EventType: 'pet.created' | 'pet.updated' | 'pet.deleted' | 'order.created' | 'order.updated';
  };
}>();

export type { ResultOf, VariablesOf } from 'gql.tada';
