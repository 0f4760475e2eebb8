import {
  execute, getLocation, getOperationAST, GraphQLError, visit,
  type DocumentNode, type ExecutionArgs, type ExecutionResult, type FieldNode, type OperationDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { coerceVariables } from './coerce.js';
import { asksForIncrementalDelivery, readsIncrements, withinNodeLimit } from './incremental.js';
import { budgetExceeded, startBudget } from './node-budget.js';

type Answer = ExecutionResult | AsyncIterable<ExecutionResult>;
type Execute = (args: ExecutionArgs) => Promise<Answer> | Answer;

const isAsyncIterable = (value: Answer): value is AsyncIterable<ExecutionResult> => Symbol.asyncIterator in value;

interface Compiled {
  readonly operation: OperationDefinitionNode;
  readonly query: CompiledQuery;
  /** Each field of the document by its `line:column`, to give errors back the node they are about. */
  readonly fields: ReadonlyMap<string, FieldNode>;
}

function fieldsByLocation(document: DocumentNode): Map<string, FieldNode> {
  const fields = new Map<string, FieldNode>();
  visit(document, {
    Field(node) {
      if (!node.loc) return;
      const { line, column } = getLocation(node.loc.source, node.loc.start);
      fields.set(`${line}:${column}`, node);
    },
  });
  return fields;
}

/**
 * graphql-jit's field errors carry their locations but not their nodes, and whatever rebuilds an error
 * (yoga before sending it) rebuilds it from its nodes: they are given back, as graphql-js locates them.
 * And graphql-js's order, errors before data: an answer is the same bytes (and ETag) compiled or not.
 */
function located(result: ExecutionResult, fields: ReadonlyMap<string, FieldNode>): ExecutionResult {
  if (!result.errors) return result;
  const errors = result.errors.map((error) => {
    const [at] = error.locations ?? [];
    const node = !error.nodes && at ? fields.get(`${at.line}:${at.column}`) : undefined;
    if (!node) return error;
    return new GraphQLError(error.message, {
      nodes: [node], path: error.path, originalError: error.originalError, extensions: error.extensions,
    });
  });
  return { errors, data: result.data, ...(result.extensions ? { extensions: result.extensions } : {}) };
}

/** Compiling costs milliseconds: a document is compiled when it runs again, so one-off documents never pay it. */
const COMPILE_ON_RUN = 2;

/**
 * Runs a query or mutation through graphql-jit: the document compiled once to JavaScript, then every run
 * of it skips graphql-js's walk of the selection for each field of each item. The variables are coerced
 * first, as graphql-js's execute() does and in its words (graphql-jit words them differently, and leaves
 * input fields' defaults out), each problem also said as data for REST; the compiled query runs with the
 * coerced values. Anything it cannot compile (and subscriptions) runs on `fallback`, once its variables
 * are known to be good, so its errors are the same.
 *
 * One executor serves one schema: compiled queries are kept per document, which the parse caches keep
 * alive while they are in use.
 *
 * Each execution counts its answer's nodes against `maxNodes` (node-budget.ts, on a schema whose
 * resolvers count); one that passes it answers `data: null` and the limit's error: the operation ran
 * (a mutation's change stands), its answer is dropped.
 *
 * A document with `@defer` or `@stream` is never compiled: for a client that reads increments it runs on
 * `fallback` (yoga's executor, which delivers them), each increment counted (incremental.ts); for one
 * that does not, on graphql-js's execute, which ignores both directives and answers once.
 */
export function createJitExecutor(maxNodes: number) {
  const documents = new WeakMap<DocumentNode, Map<string, { runs: number; compiled?: Compiled | null }>>();

  function compiledFor(args: ExecutionArgs): Compiled | null | undefined {
    let byOperation = documents.get(args.document);
    if (!byOperation) documents.set(args.document, byOperation = new Map());
    const name = args.operationName ?? '';
    let entry = byOperation.get(name);
    if (!entry) byOperation.set(name, entry = { runs: 0 });
    if (entry.compiled !== undefined) return entry.compiled;
    entry.runs += 1;
    if (entry.runs < COMPILE_ON_RUN) return undefined;
    const operation = getOperationAST(args.document, args.operationName);
    const query = operation && operation.operation !== 'subscription'
      ? compileQuery(args.schema, args.document, args.operationName ?? undefined)
      : undefined;
    entry.compiled = operation && query && isCompiledQuery(query) ? { operation, query, fields: fieldsByLocation(args.document) } : null;
    return entry.compiled;
  }

  return function jitExecute(args: ExecutionArgs, fallback: Execute = execute): Promise<Answer> | Answer {
    const incremental = asksForIncrementalDelivery(args.document);
    const compiled = args.fieldResolver || args.typeResolver || incremental ? null : compiledFor(args);
    const operation = compiled ? compiled.operation : getOperationAST(args.document, args.operationName);
    const coerced = coerceVariables(args.schema, operation?.variableDefinitions ?? [], args.variableValues ?? {});
    if (coerced.errors) return { errors: coerced.errors };
    startBudget(args.contextValue, maxNodes);
    const finish = (result: Answer): Answer => {
      if (isAsyncIterable(result)) return withinNodeLimit(result, args.contextValue);
      const exceeded = budgetExceeded(args.contextValue);
      if (exceeded) return { data: null, errors: [exceeded] };
      return compiled ? located(result, compiled.fields) : result;
    };
    const run = incremental && !readsIncrements(args.contextValue) ? execute : fallback;
    const result = (compiled ? compiled.query.query(args.rootValue, args.contextValue, coerced.coerced) : run(args)) as Promise<Answer> | Answer;
    return result instanceof Promise ? result.then(finish) : finish(result);
  };
}
