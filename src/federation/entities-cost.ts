import { getOperationAST, Kind, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode, type ValueNode } from 'graphql';
import { appError } from '../errors.js';
import type { OperationChecker } from '../graphql/operation-checker.js';
import { MAX_REPRESENTATIONS, REPRESENTATIONS_PER_POINT } from './representations.js';

/** The `_entities` fields at an operation's root, through its fragments (each once). */
function entitiesFields(set: SelectionSetNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, spread = new Set<string>()): FieldNode[] {
  return set.selections.flatMap((selection) => {
    if (selection.kind === Kind.FIELD) return selection.name.value === '_entities' ? [selection] : [];
    if (selection.kind === Kind.INLINE_FRAGMENT) return entitiesFields(selection.selectionSet, fragments, spread);
    const fragment = fragments.get(selection.name.value);
    if (!fragment || spread.has(selection.name.value)) return [];
    spread.add(selection.name.value);
    return entitiesFields(fragment.selectionSet, fragments, spread);
  });
}

/**
 * How many representations a field sends: a literal list's length, or its variable's (a value that is not
 * a list is coerced into a list of one; none sent, none). What is not a list of objects is the
 * resolver's to refuse, item by item, after it is counted.
 */
function representationsOf(field: FieldNode, variables: Readonly<Record<string, unknown>>): number {
  const value: ValueNode | undefined = field.arguments?.find((a) => a.name.value === 'representations')?.value;
  if (!value || value.kind === Kind.NULL) return 0;
  if (value.kind === Kind.LIST) return value.values.length;
  if (value.kind !== Kind.VARIABLE) return 1;
  const given = variables[value.name.value];
  return Array.isArray(given) ? given.length : given === undefined || given === null ? 0 : 1;
}

/**
 * The subgraph's operation check: a router batches hundreds of representations into one `_entities`
 * field, which costs one point per REPRESENTATIONS_PER_POINT of them (as many records as `nodes` reads
 * for its point), at least the one its root field costs; past MAX_REPRESENTATIONS it is refused whole,
 * 400, before anything is counted or read. The node estimate counts each one already (its listSize).
 */
export function withEntitiesCost(check: OperationChecker): OperationChecker {
  return (params, prepared) => {
    const request = check(params, prepared);
    const operation = getOperationAST(request.document, params.operationName);
    if (!operation) return request;
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of request.document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    let extra = 0;
    for (const field of entitiesFields(operation.selectionSet, fragments)) {
      const count = representationsOf(field, params.variables ?? {});
      if (count > MAX_REPRESENTATIONS) {
        throw appError('BAD_REQUEST', `"representations" holds ${count} representations; the limit is ${MAX_REPRESENTATIONS} per _entities field`);
      }
      extra += Math.max(0, Math.ceil(count / REPRESENTATIONS_PER_POINT) - 1);
    }
    return extra === 0 ? request : { ...request, cost: request.cost + extra };
  };
}
