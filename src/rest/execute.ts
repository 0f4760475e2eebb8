import { Kind, type DocumentNode, type ExecutionArgs, type ExecutionResult, type FieldNode } from 'graphql';
import type { OperationLimits } from '../config.js';
import { createJitExecutor } from '../graphql/execute.js';
import { nodeEstimator } from '../graphql/node-estimate.js';
import { checkNodes, checkOperation } from '../graphql/operation-limits.js';
import { classify } from '../pipeline/error-response.js';
import type { Context } from '../schema/builder.js';

export type Execute = (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult;

/** The root field a route's fixed operation selects (SOFA builds one operation per route). */
function rootField(document: DocumentNode): string {
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  const field = operation?.selectionSet.selections.find((s): s is FieldNode => s.kind === Kind.FIELD);
  return field?.name.value ?? '';
}

/**
 * SOFA's executor: each route's fixed operation is compiled (graphql-jit); the operation limits apply to
 * the operations SOFA runs as to any on /graphql (checked once per route's document, each list at its
 * longest page whatever the request's parameters, so the node estimate holds for every call); the root field's
 * value is handed to the route (a created record's Location); and errors are classified here, where the
 * request id is known, so an unexpected one is logged with it.
 */
export function restExecutor(limits: OperationLimits): Execute {
  const checked = new WeakMap<DocumentNode, string>();
  const execute = createJitExecutor(limits.maxNodes);
  return async (args) => {
    let field = checked.get(args.document);
    if (field === undefined) {
      const { operation } = checkOperation(args.document, args.operationName ?? undefined, limits);
      checkNodes(nodeEstimator(args.schema).operation(args.document, operation), limits);
      field = rootField(args.document);
      checked.set(args.document, field);
    }
    // SOFA's fixed operations carry no @defer or @stream: one result.
    const result = await execute(args) as ExecutionResult;
    const { reply, requestId } = args.contextValue as Context;
    if (result.errors) return { ...result, errors: result.errors.map((e) => classify(e, requestId)) };
    if (reply) reply.value = result.data?.[field];
    return result;
  };
}
