import { printSubgraphSchema } from '@apollo/subgraph';
import { GraphQLDeferDirective, GraphQLStreamDirective } from '@graphql-tools/utils';
import { specifiedDirectives, type GraphQLSchema } from 'graphql';
import type { OrderRecord } from '../domain/order.js';
import type { PetRecord } from '../domain/pet.js';
import { builder } from '../schema/builder.js';
import { schema } from '../schema/index.js';
import { Order, Pet } from '../schema/refs.js';
import { fetchEntity, installEntitiesField } from './entities-field.js';

/** The path the subgraph is served at: /graphql's own schema stays what its clients know, byte for byte. */
export const SUBGRAPH_PATH = '/graphql/subgraph';

/** The federation version our SDL links: 2.6 is what the router and composition we test with take. */
const FEDERATION_URL = 'https://specs.apollo.dev/federation/v2.6';

/**
 * The schema a router composes: /graphql's, built by the same builder (every field, resolver and
 * extension the same), plus `_service { sdl }`, `_entities` and the entities' @key. The entities are
 * declared only now, after `schema` (imported above) is built: federation's plugin adds @key to the
 * schemas built after, so the two schemas are the one schema, with federation's additions on this one
 * alone. Pothos builds anew on each call; it is called once, here.
 */
function buildSubgraphSchema(): GraphQLSchema {
  // Built, so that what follows reaches this schema alone (the import alone builds it; this says it is needed).
  void schema;
  // `id` first: the key a router picks when it holds both.
  const keys = [builder.selection<{ id: number }>('id'), builder.selection<{ nodeId: string }>('nodeId')];
  builder.asEntity(Pet, {
    key: keys,
    resolveReference: (reference, context) => fetchEntity(context, { ...reference, __typename: 'Pet' }, 'representation') as Promise<PetRecord | null>,
  });
  builder.asEntity(Order, {
    key: keys,
    resolveReference: (reference, context) => fetchEntity(context, { ...reference, __typename: 'Order' }, 'representation') as Promise<OrderRecord | null>,
  });
  const subgraph = builder.toSubGraphSchema({
    linkUrl: FEDERATION_URL,
    federationDirectives: ['@key'],
    directives: [...specifiedDirectives, GraphQLDeferDirective, GraphQLStreamDirective],
  });
  installEntitiesField(subgraph.getQueryType()!.getFields()._entities!);
  return subgraph;
}

export const subgraphSchema = buildSubgraphSchema();

/** What `_service { sdl }` answers (federation's own printer: @key and @link, no _service or _entities), as committed in schema/subgraph.graphql with a final newline. */
export const subgraphSdl = (): string => printSubgraphSchema(subgraphSchema);
