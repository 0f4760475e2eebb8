import { Kind, type DocumentNode, type ExecutionArgs, type ExecutionResult, type FieldNode } from 'graphql';
import type { OperationLimits } from '../config.js';
import { toAppError } from '../errors.js';
import { checkOperation } from '../graphql/operation-limits.js';
import { createJitExecutor } from '../graphql/execute.js';
import { REST_BASE, REST_ROUTES, type RestRoute } from './routes.js';

type Execute = (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult;

/** The root field a route's fixed operation selects (SOFA builds one operation per route). */
function rootField(document: DocumentNode): string {
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  const field = operation?.selectionSet.selections.find((s): s is FieldNode => s.kind === Kind.FIELD);
  return field?.name.value ?? '';
}

const routesByField = new Map<string, RestRoute>(
  Object.entries(REST_ROUTES).map(([coordinate, route]) => [coordinate.split('.')[1]!, route]),
);

/** `/pets/:id` filled from the created record: `/v1/pets/42`. */
function locationOf(template: string, record: Record<string, unknown>): string {
  return REST_BASE + template.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(record[name])));
}

interface RequestHooks {
  /** A created record's location, for the response. */
  created(contextValue: unknown, location: string): void;
  requestId(contextValue: unknown): string | undefined;
}

/**
 * SOFA's executor: each route's fixed operation is compiled (graphql-jit); the operation limits apply to
 * the operations SOFA runs as to any on /graphql (checked once per route's document), a created record's
 * location is handed on, and errors are coded here, where the request id is known, so an unexpected one
 * is logged with it.
 */
export function restExecutor(limits: OperationLimits, hooks: RequestHooks): Execute {
  const checked = new WeakMap<DocumentNode, string>();
  const execute = createJitExecutor();
  return async (args) => {
    let field = checked.get(args.document);
    if (field === undefined) {
      checkOperation(args.document, args.operationName ?? undefined, limits);
      field = rootField(args.document);
      checked.set(args.document, field);
    }
    const executed = await execute(args);
    const requestId = executed.errors && hooks.requestId(args.contextValue);
    const result = executed.errors ? { ...executed, errors: executed.errors.map((e) => toAppError(e, requestId)) } : executed;
    const template = routesByField.get(field)?.location;
    const record = result.data?.[field];
    if (template && record && typeof record === 'object') hooks.created(args.contextValue, locationOf(template, record as Record<string, unknown>));
    return result;
  };
}
