import {
  GraphQLError, Kind, parse,
  type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode,
} from 'graphql';
import type { OperationLimits } from '../config.js';
import { appError, type AppError } from '../errors.js';
import { checkDocumentNesting } from './document-nesting.js';
import { ESTIMATE_CAP } from './node-estimate.js';

/** An operation that passed the limits, with what it costs: one point per root field. */
export interface CheckedOperation {
  readonly operation: OperationDefinitionNode;
  readonly cost: number;
}

/** Parses within the token limit and MAX_NESTING: a document past either is refused before it is fully read. */
export function parseWithin(query: string, limits: OperationLimits): DocumentNode {
  checkDocumentNesting(query, limits.maxTokens);
  try {
    return parse(query, { maxTokens: limits.maxTokens });
  } catch (error) {
    if (error instanceof GraphQLError && /more th\w+ \d+ tokens/.test(error.message)) {
      throw appError('BAD_REQUEST', `The document has more than ${limits.maxTokens} tokens; the limit is ${limits.maxTokens}`);
    }
    throw error;
  }
}

/** Root fields that cost no point: the quota look-up, which must work when the quota is spent. */
export const FREE_ROOT_FIELDS: ReadonlySet<string> = new Set(['rateLimit']);

interface Shape {
  /** Response keys of the fields at this level (fragments expanded), each with its field's name. */
  readonly keys: ReadonlyMap<string, string>;
  readonly depth: number;
  readonly directives: number;
}

/**
 * `ofType` unwraps one type wrapper: a single object, never a list, so it multiplies nothing. Tools
 * nest it nine deep to read a type like `[Pet!]!` (GraphiQL's introspection query), so it adds no depth.
 */
const LINEAR_FIELDS = new Set(['ofType']);

/**
 * Measures a selection set: its root response keys, its depth and its directives. Each fragment is
 * measured once, so a fragment spread a thousand times (or a chain that doubles at each step) costs
 * one visit; a cycle is left for validation to report.
 */
function measurer(document: DocumentNode) {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const memo = new Map<string, Shape>();
  const visiting = new Set<string>();

  const measure = (set: SelectionSetNode): Shape => {
    const keys = new Map<string, string>();
    let depth = 0;
    let directives = 0;
    for (const selection of set.selections) {
      directives += selection.directives?.length ?? 0;
      if (selection.kind === Kind.FIELD) {
        keys.set(selection.alias?.value ?? selection.name.value, selection.name.value);
        const inner = selection.selectionSet ? measure(selection.selectionSet) : undefined;
        depth = Math.max(depth, (LINEAR_FIELDS.has(selection.name.value) ? 0 : 1) + (inner?.depth ?? 0));
        directives += inner?.directives ?? 0;
        continue;
      }
      const inner = selection.kind === Kind.INLINE_FRAGMENT ? measure(selection.selectionSet) : fragment(selection.name.value);
      for (const [key, name] of inner.keys) keys.set(key, name);
      depth = Math.max(depth, inner.depth);
      directives += inner.directives;
    }
    return { keys, depth, directives };
  };

  const fragment = (name: string): Shape => {
    const known = memo.get(name);
    if (known) return known;
    const definition = fragments.get(name);
    if (!definition || visiting.has(name)) return { keys: new Map(), depth: 0, directives: 0 };
    visiting.add(name);
    const inner = measure(definition.selectionSet);
    visiting.delete(name);
    const shape = { ...inner, directives: inner.directives + (definition.directives?.length ?? 0) };
    memo.set(name, shape);
    return shape;
  };
  return measure;
}

function selectOperation(document: DocumentNode, operationName: string | undefined): OperationDefinitionNode {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operationName !== undefined) {
    const named = operations.find((o) => o.name?.value === operationName);
    if (!named) throw appError('BAD_REQUEST', `The document has no operation named "${operationName}"`);
    return named;
  }
  if (operations.length !== 1) {
    throw appError('BAD_REQUEST', operations.length === 0
      ? 'The document has no operation to run'
      : 'The document has several operations: name the one to run in "operationName"');
  }
  return operations[0]!;
}

/**
 * The operation limits of decisions.md, checked before anything runs, and the operation's cost. The
 * same check serves /graphql and the fixed operations SOFA runs for REST.
 */
export function checkOperation(document: DocumentNode, operationName: string | undefined, limits: OperationLimits): CheckedOperation {
  const operation = selectOperation(document, operationName);
  const shape = measurer(document)(operation.selectionSet);
  const rootFields = shape.keys.size;
  const directives = shape.directives + (operation.directives?.length ?? 0)
    + operation.variableDefinitions!.reduce((n, v) => n + (v.directives?.length ?? 0), 0);
  if (rootFields > limits.maxRootFields) {
    throw appError('BAD_REQUEST', `The operation selects ${rootFields} root fields; the limit is ${limits.maxRootFields} per operation, aliases included`);
  }
  if (shape.depth > limits.maxDepth) {
    throw appError('BAD_REQUEST', `The operation is ${shape.depth} levels deep; the limit is ${limits.maxDepth}`);
  }
  if (directives > limits.maxDirectives) {
    throw appError('BAD_REQUEST', `The operation uses ${directives} directives; the limit is ${limits.maxDirectives}`);
  }
  const paid = [...shape.keys.values()].filter((name) => !FREE_ROOT_FIELDS.has(name)).length;
  // An operation of free fields only (a quota look-up) costs nothing; an empty one still costs one.
  return { operation, cost: rootFields === 0 ? 1 : paid };
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * The node limit, before the operation runs: `nodes` is its estimate (graphql/node-estimate.ts), each
 * list at its page size, each fragment where it is spread. The same check serves both surfaces.
 */
export function checkNodes(nodes: number, limits: OperationLimits): void {
  if (nodes <= limits.maxNodes) return;
  const about = nodes >= ESTIMATE_CAP ? `more than ${count(ESTIMATE_CAP)}` : `about ${count(nodes)}`;
  throw appError('BAD_REQUEST', `The operation could return ${about} nodes (fields and list items, each list at its page size); `
    + `the limit is ${count(limits.maxNodes)}`);
}

/** The node limit, while the operation runs: its answer grew past it (a list longer than its estimate assumed). */
export function nodesExceeded(maxNodes: number): AppError {
  return appError('BAD_REQUEST', `The answer grew past ${count(maxNodes)} nodes while the operation ran, `
    + `more than its estimate (a list held more items than assumed); the limit is ${count(maxNodes)}: ask for fewer items or fewer nested lists`);
}
