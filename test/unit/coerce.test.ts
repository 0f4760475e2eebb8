import { getVariableValues, parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { coerceVariables } from '../../src/graphql/coerce.js';
import type { InputProblem } from '../../src/errors.js';
import { schema } from '../../src/schema/index.js';

const OPERATIONS = {
  createPet: 'mutation($input: NewPet!) { createPet(input: $input) { id } }',
  pets: 'query($limit: Int, $status: PetStatus) { pets(limit: $limit, status: $status) { id } }',
  updatePet: 'mutation($petId: SafeInt!, $input: PetChange!) { updatePet(petId: $petId, input: $input) { id } }',
  placeOrder: 'mutation($input: NewOrder!) { placeOrder(input: $input) { id } }',
};
type Operation = keyof typeof OPERATIONS;

const definitions = (operation: Operation) =>
  (parse(OPERATIONS[operation]).definitions[0] as OperationDefinitionNode).variableDefinitions ?? [];
const coerce = (operation: Operation, inputs: Record<string, unknown>) => coerceVariables(schema, definitions(operation), inputs);
/** What graphql-js itself says of the same variables, with the same limit on errors. */
const graphqlSays = (operation: Operation, inputs: Record<string, unknown>) =>
  getVariableValues(schema, definitions(operation), inputs, { maxErrors: 50 });

const SAFE_INT = 'Expected an integer from 1 to 9007199254740991, got';
const problem = (path: InputProblem['path'], kind: InputProblem['problem'], detail = ''): InputProblem => ({ path, problem: kind, detail });

describe('coerceVariables refusing input', () => {
  it.each<[string, Operation, Record<string, unknown>, InputProblem[]]>([
    ['an empty NewPet lacks its required fields, in the type\'s order', 'createPet', { input: {} },
      [problem(['input', 'categoryId'], 'missing'), problem(['input', 'name'], 'missing')]],
    ['a string categoryId is invalid, with the scalar\'s message', 'createPet', { input: { name: 'x', categoryId: '5' } },
      [problem(['input', 'categoryId'], 'invalid', `${SAFE_INT} "5"`)]],
    ['an unknown field with no reason has an empty detail', 'createPet', { input: { name: 'x', categoryId: 1, colour: 'red' } },
      [problem(['input', 'colour'], 'unknown')]],
    ['NewPet.id is unknown, with its reason', 'createPet', { input: { name: 'x', categoryId: 1, id: 3 } },
      [problem(['input', 'id'], 'unknown', 'the service assigns it')]],
    ['NewOrder.status is unknown, with its reason', 'placeOrder', { input: { petId: 1, status: 'placed' } },
      [problem(['input', 'status'], 'unknown', 'an order is placed as "placed"; move it on with an update')]],
    ['PetChange.status and PetChange.id are unknown, in the object\'s order', 'updatePet', { petId: 1, input: { status: 'sold', id: 2 } }, [
      problem(['input', 'status'], 'unknown', 'a pet\'s status changes only through its orders (placing, delivering or cancelling one)'),
      problem(['input', 'id'], 'unknown', 'a pet\'s id never changes'),
    ]],
    ['a missing field comes before an unknown one', 'createPet', { input: { name: 'x', colour: 'red' } },
      [problem(['input', 'categoryId'], 'missing'), problem(['input', 'colour'], 'unknown')]],
    ['an enum value outside PetStatus is invalid', 'createPet', { input: { name: 'x', categoryId: 1, status: 'flying' } },
      [problem(['input', 'status'], 'invalid', 'Value "flying" does not exist in "PetStatus" enum.')]],
    ['a body that is not an object is invalid as a whole', 'createPet', { input: 'x' },
      [problem(['input'], 'invalid', 'Expected type "NewPet" to be an object.')]],
    ['bad arguments are invalid each at its own path', 'updatePet', { petId: 0, input: { name: 5 } }, [
      problem(['petId'], 'invalid', `${SAFE_INT} 0`),
      problem(['input', 'name'], 'invalid', 'String cannot represent a non string value: 5'),
    ]],
    ['bad parameters are invalid at the parameter', 'pets', { limit: 'ten', status: 'lost' }, [
      problem(['limit'], 'invalid', 'Int cannot represent non-integer value: "ten"'),
      problem(['status'], 'invalid', 'Value "lost" does not exist in "PetStatus" enum.'),
    ]],
  ])('says %s', (_, operation, inputs, problems) => {
    const { errors } = coerce(operation, inputs);
    // graphql-js's very messages, but for a fixed field's reason given instead of its final full stop.
    const expected = graphqlSays(operation, inputs).errors!.map((e, i) => {
      const { problem: kind, detail } = problems[i]!;
      return kind === 'unknown' && detail ? `${e.message.slice(0, -1)}: ${detail}.` : e.message;
    });
    expect(errors?.map((e) => e.message)).toEqual(expected);
    expect(errors?.map((e) => e.input)).toEqual(problems);
    expect(errors?.map((e) => e.extensions)).toEqual(problems.map(() => ({ code: 'BAD_REQUEST', status: 400 })));
  });

  it('says why NewPet.id may not be sent, in place of graphql-js\'s full stop', () => {
    expect(coerce('createPet', { input: { name: 'x', categoryId: 1, id: 3 } }).errors?.map((e) => e.message)).toEqual([
      'Variable "$input" got invalid value { name: "x", categoryId: 1, id: 3 }; Field "id" is not defined by type "NewPet": the service assigns it.',
    ]);
  });

  it('stops at 50 errors and a 51st saying so, as graphql-js does', () => {
    const inputs = { input: { name: 'x', categoryId: 1, ...Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, i])) } };
    const { errors } = coerce('createPet', inputs);
    expect(errors).toHaveLength(51);
    expect(errors?.at(-1)?.message).toBe('Too many errors processing variables, error limit reached. Execution aborted.');
    expect(errors?.at(-1)?.extensions.code).toBe('BAD_REQUEST');
    expect(errors?.map((e) => e.message)).toEqual(graphqlSays('createPet', inputs).errors?.map((e) => e.message));
    expect(errors?.slice(0, 50).map((e) => e.input)).toEqual(Array.from({ length: 50 }, (_, i) => problem(['input', `k${i}`], 'unknown')));
  });

  it.each<[string, Operation, Record<string, unknown>, string]>([
    ['a required variable left out', 'createPet', {}, 'Variable "$input" of required type "NewPet!" was not provided.'],
    ['a non-null variable sent as null', 'createPet', { input: null }, 'Variable "$input" of non-null type "NewPet!" must not be null.'],
    ['a required variable left out beside a good one', 'updatePet', { input: { name: 'x' } }, 'Variable "$petId" of required type "SafeInt!" was not provided.'],
  ])('refuses %s as graphql-js does, with no input problem', (_, operation, inputs, message) => {
    const { errors } = coerce(operation, inputs);
    expect(errors?.map((e) => [e.message, e.input, e.extensions.code])).toEqual([[message, undefined, 'BAD_REQUEST']]);
    expect(errors?.map((e) => e.message)).toEqual(graphqlSays(operation, inputs).errors?.map((e) => e.message));
  });
});

describe('coerceVariables accepting input', () => {
  it.each<[string, Operation, Record<string, unknown>, Record<string, unknown>]>([
    ['a NewPet, its status defaulting to available', 'createPet', { input: { name: 'x', categoryId: 1 } },
      { input: { categoryId: 1, name: 'x', status: 'available' } }],
    ['a NewPet with its own status', 'createPet', { input: { name: 'x', categoryId: 2, status: 'sold' } },
      { input: { categoryId: 2, name: 'x', status: 'sold' } }],
    ['no optional parameters at all', 'pets', {}, {}],
    ['optional parameters, null ones kept as null', 'pets', { limit: 5, status: null }, { limit: 5, status: null }],
    ['a partial PetChange', 'updatePet', { petId: 9, input: { categoryId: 3 } }, { petId: 9, input: { categoryId: 3 } }],
    ['a NewOrder', 'placeOrder', { input: { petId: 4 } }, { input: { petId: 4 } }],
  ])('coerces %s as graphql-js does', (_, operation, inputs, coerced) => {
    expect(coerce(operation, inputs)).toEqual({ coerced });
    expect(graphqlSays(operation, inputs)).toEqual({ coerced });
  });
});
