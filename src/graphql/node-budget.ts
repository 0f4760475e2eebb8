import {
  getNamedType, isLeafType, isListType, isNonNullType, isObjectType,
  type FieldNode, type GraphQLFieldResolver, type GraphQLResolveInfo, type GraphQLSchema,
} from 'graphql';
import type { AppError } from '../errors.js';
import { nodeEstimator } from './node-estimate.js';
import { nodesExceeded } from './operation-limits.js';

/**
 * The node limit while an operation runs, for what the estimate cannot see: a list longer than its
 * declared size (an animal ordered a thousand times). Every field with a resolver of its own counts,
 * when it resolves, one node and the nodes of its selection that no resolver of their own counts (an
 * item's plain fields); a list counts that for each item it returns. So the count is the answer's size
 * as the estimate measures it, kept with one addition per resolver call: plain fields, which graphql-jit
 * reads inline, cost nothing. Past the limit a list resolves to no items, so nothing grows any further,
 * and the executor answers the limit's error instead of the truncated data.
 */
interface Budget {
  used: number;
  readonly max: number;
  exceeded?: AppError;
}

const BUDGET = Symbol('node budget');
type Budgeted = { [BUDGET]?: Budget };

/** Starts (or starts again: each event of a subscription) counting one execution against `max` nodes. */
export function startBudget(context: unknown, max: number): void {
  if (typeof context === 'object' && context !== null) (context as Budgeted)[BUDGET] = { used: 0, max };
}

/** The limit's error, when the execution that ran with this context passed it. */
export function budgetExceeded(context: unknown): AppError | undefined {
  return typeof context === 'object' && context !== null ? (context as Budgeted)[BUDGET]?.exceeded : undefined;
}

function spend(budget: Budget, nodes: number): void {
  budget.used += nodes;
  if (budget.used > budget.max) budget.exceeded ??= nodesExceeded(budget.max);
}

/** The plain nodes under one value of a field: its selection, less what resolvers of their own count. Once per place in a document. */
const weights = new WeakMap<readonly FieldNode[], number>();
function weightOf(info: GraphQLResolveInfo): number {
  let weight = weights.get(info.fieldNodes);
  if (weight === undefined) {
    const type = getNamedType(info.returnType);
    weight = 0;
    for (const node of info.fieldNodes) {
      if (node.selectionSet) {
        weight += nodeEstimator(info.schema).selection(node.selectionSet, type, { fragments: info.fragments, skip: counted });
      }
    }
    weights.set(info.fieldNodes, weight);
  }
  return weight;
}

const COUNTED = Symbol('counted');
const counted = (field: { resolve?: unknown }) => typeof field.resolve === 'function' && COUNTED in field.resolve;

function countedResolver(resolve: GraphQLFieldResolver<unknown, unknown>, list: boolean, leaf: boolean): GraphQLFieldResolver<unknown, unknown> {
  const items = (budget: Budget, value: unknown, weight: number) => {
    spend(budget, 1 + (Array.isArray(value) ? value.length * (1 + weight) : 0));
    return budget.exceeded ? [] : value;
  };
  const wrapped: GraphQLFieldResolver<unknown, Budgeted> = (parent, args, context, info) => {
    const budget = context?.[BUDGET];
    if (budget === undefined) return resolve(parent, args, context, info);
    if (!list) {
      spend(budget, leaf ? 1 : 1 + weightOf(info));
      return resolve(parent, args, context, info);
    }
    if (budget.exceeded) return [];
    const weight = leaf ? 0 : weightOf(info);
    const value = resolve(parent, args, context, info);
    return value instanceof Promise ? value.then((v) => items(budget, v, weight)) : items(budget, value, weight);
  };
  return Object.assign(wrapped, { [COUNTED]: true }) as GraphQLFieldResolver<unknown, unknown>;
}

/**
 * Makes every resolver of the schema's own types count (introspection's lists are bounded by the schema
 * itself, and the estimate counts them exactly). Done in place, once per schema, before any surface
 * copies the schema's fields (SOFA's schema does).
 */
export function countNodes(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!field.resolve || counted(field)) continue;
      const unwrapped = isNonNullType(field.type) ? field.type.ofType : field.type;
      field.resolve = countedResolver(field.resolve, isListType(unwrapped), isLeafType(getNamedType(field.type)));
    }
  }
}
