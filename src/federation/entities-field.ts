import type { GraphQLField } from 'graphql';
import { appError } from '../errors.js';
import type { Context } from '../schema/builder.js';
import { CACHEABLE, listSize } from '../schema/extensions.js';
import { checkReadScope } from '../schema/node.js';
import { ENTITIES, type EntityType } from './entities.js';
import { MAX_REPRESENTATIONS, readRepresentation } from './representations.js';

/** A record as `_entities` answers it: `_Entity`'s members are told apart by the type each representation named. */
type Entity = { readonly id: number; readonly __typename: EntityType };

/**
 * One representation's record: read as `node` reads one (its scope decided before anything is read, so a
 * refusal says nothing of whether the record exists), through the request's loaders (the representations
 * of one type are one query). A record we do not have is null without an error: federation's "no such
 * entity here", which the router passes on as null.
 */
export async function fetchEntity(context: Context, value: unknown, place: string): Promise<Entity | null> {
  const { type, id } = readRepresentation(value, place);
  const { scope, load } = ENTITIES[type];
  checkReadScope(context, type, scope, '_entities');
  const record = await load(context, id);
  return record && { ...record, __typename: type };
}

/**
 * Each representation answered at its place, the others whatever it is: an Error item is null with its
 * error in both executors (graphql-js, graphql-jit; see `nodes` in schema/node.ts), where a rejected
 * promise would be dropped by graphql-jit. The cap refuses the request before it is counted
 * (entities-cost.ts); it holds here too, so no way into execution can pass it.
 */
export function resolveEntities(_root: unknown, { representations }: { representations: readonly unknown[] }, context: Context) {
  if (representations.length > MAX_REPRESENTATIONS) {
    throw appError('BAD_REQUEST', `"representations" may hold at most ${MAX_REPRESENTATIONS}, got ${representations.length}`);
  }
  return Promise.all(representations.map((value, i) =>
    fetchEntity(context, value, `representations[${i}]`).catch((error: unknown) => error as Entity)));
}

/**
 * Our `_entities` in place of @apollo/subgraph's (which throws for the whole list on one unknown type):
 * sized for the node estimate by its representations, and cacheable, as `nodes` is (it reads records
 * through the stores, and its refusals follow the key's scopes, which the cache keys by).
 */
export function installEntitiesField(field: GraphQLField<unknown, unknown>): void {
  field.resolve = resolveEntities as never;
  Object.assign(field, {
    extensions: { ...field.extensions, ...CACHEABLE, ...listSize({ slicingArgument: 'representations', assumedSize: MAX_REPRESENTATIONS }) },
  });
}
