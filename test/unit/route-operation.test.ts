import { Kind, type ExecutionArgs, type FieldNode, type OperationDefinitionNode } from 'graphql';
import { createSofa, createSofaRouter } from 'sofa-api';
import { describe, expect, it } from 'vitest';
import { routeOperation, sofaOperations } from '../../src/rest/route-operation.js';
import { restSchema } from '../../src/rest/rest-schema.js';
import { REST_BASE, REST_ROUTES, routedFields, routeKey } from '../../src/rest/routes.js';
import { schema } from '../../src/schema/index.js';

const rest = restSchema(schema);
const config = { schema: rest, basePath: REST_BASE, routes: REST_ROUTES };

interface Generated { method: string; path: string; handler(request: object, context: object): Promise<unknown> }

/** The variables SOFA's own handler passes to execute for a request with these params, or the error it reports. */
async function sofaVariables(route: { method: string; path: string }, fieldName: string, params: Record<string, unknown>) {
  let seen: unknown;
  let failed: unknown;
  const sofa = createSofa({
    ...config,
    context: () => ({}),
    execute: ((args: ExecutionArgs) => { seen = args.variableValues; return { data: { [fieldName]: null } }; }) as never,
    errorHandler: ((errors: readonly Error[]) => { failed = errors[0]!.message; return new Response(); }) as never,
  });
  const generated = (createSofaRouter(sofa) as unknown as { __routes: Generated[] }).__routes.find((r) => r.method === route.method && r.path === route.path)!;
  await generated.handler({ url: 'http://localhost/', params, body: null }, {});
  return failed === undefined ? { variables: seen } : { error: failed };
}

/** The variables the route's own operation runs with for the same arguments, or the error it answers. */
async function ourVariables(key: string, fieldName: string, args: Record<string, unknown>) {
  const documents = await sofaOperations(config);
  let seen: unknown;
  const run = routeOperation({
    schema: rest, document: documents.get(key)!, fieldName, status: 200, context: () => ({}),
    execute: (executed) => { seen = executed.variableValues; return { data: { [fieldName]: null } }; },
  });
  try {
    await run({} as never, args);
    return { variables: seen };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe('each REST route runs the operation SOFA generated for it', () => {
  it('one document per route, selecting the route\'s field with a variable for each of its arguments', async () => {
    const documents = await sofaOperations(config);
    for (const { key, field } of routedFields(rest)) {
      const operation = documents.get(key)!.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
      const [root] = operation.selectionSet.selections as FieldNode[];
      expect(root!.name.value, key).toBe(field.name);
      expect(operation.variableDefinitions!.map((v) => v.variable.name.value).sort(), key).toEqual(field.args.map((a) => a.name).sort());
    }
  });

  const cases: [coordinate: keyof typeof REST_ROUTES, params: Record<string, unknown>][] = [
    ['Query.pets', {}],
    ['Query.pets', { limit: '20', status: 'sold' }],
    ['Query.pets', { limit: 'abc' }],
    ['Query.pets', { limit: ['1', '2'] }],
    ['Query.pets', { limit: '1.5', cursor: 'x' }],
    ['Query.pet', { petId: '7' }],
    ['Query.pet', { petId: '-1' }],
    ['Mutation.createPet', { input: { name: 'Rex', categoryId: 3 } }],
    ['Mutation.createPet', { input: '{"name":"Rex","categoryId":3}' }],
    ['Mutation.updatePet', { petId: '4', input: { status: 'sold' } }],
    ['Query.events', { after: '10', types: ['pet.created', 'pet.updated'] }],
    ['Query.events', { types: 'pet.created' }],
  ];
  it.each(cases)('%s with %j: the same variables as SOFA\'s own handler, or the same refusal', async (coordinate, params) => {
    const route = REST_ROUTES[coordinate];
    const fieldName = coordinate.split('.')[1]!;
    const theirs = await sofaVariables(route, fieldName, params);
    const ours = await ourVariables(routeKey(route), fieldName, params);
    expect(ours).toEqual(theirs);
  });
});
