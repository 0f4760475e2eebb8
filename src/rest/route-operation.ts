import { createGraphQLError } from '@graphql-tools/utils';
import {
  GraphQLBoolean, isEqualType, isInputObjectType, isScalarType, Kind,
  type DocumentNode, type ExecutionArgs, type GraphQLSchema, type OperationDefinitionNode, type TypeNode,
} from 'graphql';
import { createSofa, createSofaRouter } from 'sofa-api';
import type { ServerContext } from '../pipeline/context.js';
import { Response } from '../pipeline/response.js';
import { throwRestErrors } from './errors.js';
import type { Execute } from './execute.js';
import { REST_ROUTES, routeKey } from './routes.js';

type SofaConfig = Parameters<typeof createSofa>[0];
interface GeneratedRoute {
  readonly method: string;
  readonly path: string;
  handler(request: object, serverContext: object): Promise<unknown>;
}

/**
 * The operation SOFA generated for each route, by route key. SOFA builds them at startup, with the route
 * table and the OpenAPI document; each generated handler is called once, here, with an executor that
 * keeps the document it is given and runs nothing. What runs per request is then exactly the document
 * SOFA would run, without SOFA's per-request handler (see routeOperation).
 */
export async function sofaOperations(config: SofaConfig): Promise<Map<string, DocumentNode>> {
  let seen: DocumentNode | undefined;
  const keep = (args: ExecutionArgs) => { seen = args.document; return { data: null }; };
  const probe = createSofa({ ...config, context: () => ({}), execute: keep as never });
  const generated = (createSofaRouter(probe) as unknown as { __routes: GeneratedRoute[] }).__routes;
  const documents = new Map<string, DocumentNode>();
  for (const route of Object.values(REST_ROUTES)) {
    const found = generated.find((r) => r.method === route.method && r.path === route.path);
    if (!found) throw new Error(`SOFA generated no handler for ${routeKey(route)}`);
    seen = undefined;
    await found.handler({ url: 'http://localhost/', params: {}, body: null }, {});
    if (!seen) throw new Error(`SOFA's handler for ${routeKey(route)} ran no operation`);
    documents.set(routeKey(route), seen);
  }
  return documents;
}

type Reader = (value: unknown) => unknown;

/**
 * A parameter's text to the variable's value, as SOFA decodes it (sofa-api parse.js): a scalar through
 * its `serialize` (Boolean from `true`), an input object as JSON unless it already is one, a list item
 * by item. Built once per variable, so a request only runs the functions its types need.
 */
function readerOf(type: TypeNode, schema: GraphQLSchema): Reader {
  if (type.kind === Kind.NON_NULL_TYPE) return readerOf(type.type, schema);
  if (type.kind === Kind.LIST_TYPE) {
    const item = readerOf(type.type, schema);
    return (value) => (Array.isArray(value) ? value : [value]).map(item);
  }
  const named = schema.getType(type.name.value);
  if (isScalarType(named)) {
    if (isEqualType(GraphQLBoolean, named)) return (value) => named.serialize(value === 'true' || value === true);
    return (value) => named.serialize(value);
  }
  if (isInputObjectType(named)) return (value) => (value && typeof value === 'object' ? value : JSON.parse(value as string));
  return (value) => value;
}

export interface RouteOperationOptions {
  /** The schema SOFA's routes are built from (rest-schema.ts): its scalars decode parameters. */
  readonly schema: GraphQLSchema;
  readonly document: DocumentNode;
  /** The root field the route serves: its value is the answer's body. */
  readonly fieldName: string;
  readonly status: number;
  readonly execute: Execute;
  readonly context: (serverContext: ServerContext) => object;
}

/** Where a route's variables come from: the path's `:name` segments win, then the query string or the body. */
export type RouteArguments = Readonly<Record<string, unknown>>;

/**
 * One route's operation as SOFA's handler runs it (variables read from the arguments, the operation
 * executed, the root field's value answered in the route's status, errors to SOFA's errorHandler), with
 * all that can be decided once decided here: the variables' readers, the operation's name.
 */
export function routeOperation({ schema, document, fieldName, status, execute, context }: RouteOperationOptions) {
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (!operation) throw new Error(`SOFA's document for ${fieldName} has no operation`);
  const variables = (operation.variableDefinitions ?? []).map((v) => ({ name: v.variable.name.value, read: readerOf(v.type, schema) }));
  const operationName = operation.name?.value;

  function variablesOf(args: RouteArguments): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    try {
      for (const { name, read } of variables) {
        const given = args[name];
        if (given !== undefined && given !== null) values[name] = read(given);
      }
    } catch (error) {
      // As SOFA words a parameter it cannot read: its message, a 400.
      throwRestErrors([createGraphQLError((error as Error).message || String(error), { extensions: { http: { status: 400 } } })]);
    }
    return values;
  }

  return async (serverContext: ServerContext, args: RouteArguments): Promise<Response> => {
    let result;
    try {
      result = await execute({ schema, document, contextValue: context(serverContext), variableValues: variablesOf(args), operationName });
    } catch (error) {
      // Whatever the execution throws goes to the errorHandler, as in SOFA.
      throwRestErrors([error]);
    }
    if (result.errors) throwRestErrors(result.errors);
    return Response.json(result.data?.[fieldName], { status });
  };
}
export type RouteOperation = ReturnType<typeof routeOperation>;
