import {
  coerceInputValue, getNullableType, isInputObjectType, isInputType, isListType, isNonNullType, typeFromAST, valueFromAST,
  type GraphQLInputType, type GraphQLSchema, type VariableDefinitionNode,
} from 'graphql';
import { inspect } from 'graphql/jsutils/inspect.js';
import { printPathArray } from 'graphql/jsutils/printPathArray.js';
import { fixedFieldReason } from '../domain/fixed-fields.js';
import { appError, isAppError, type AppError, type InputProblem } from '../errors.js';

type Path = readonly (string | number)[];

/** As execute() is told by graphql-jit's callers: a body of a thousand bad fields is not a thousand errors. */
const MAX_ERRORS = 50;

/** Thrown out of graphql-js's coercion to stop it, as getVariableValues' maxErrors does. */
const ENOUGH = Symbol('enough errors');

export type Coerced = { readonly coerced: Record<string, unknown>; readonly errors?: undefined } | { readonly errors: AppError[] };

/**
 * An operation's variables coerced as graphql-js's getVariableValues coerces them, with its very messages,
 * but each problem also said as data (InputProblem: which field, and whether it is invalid, unknown or
 * missing) and with the code of the scalar that refused it. So REST can name a body field, and no one
 * has to read graphql-js's wording back.
 */
export function coerceVariables(schema: GraphQLSchema, definitions: readonly VariableDefinitionNode[], inputs: Readonly<Record<string, unknown>>): Coerced {
  const errors: AppError[] = [];
  const coerced: Record<string, unknown> = {};
  try {
    coerceEach(schema, definitions, inputs, coerced, (error) => {
      if (errors.length >= MAX_ERRORS) throw ENOUGH;
      errors.push(error);
    });
  } catch (error) {
    if (error !== ENOUGH) throw error;
    errors.push(appError('BAD_REQUEST', 'Too many errors processing variables, error limit reached. Execution aborted.'));
  }
  return errors.length > 0 ? { errors } : { coerced };
}

function coerceEach(
  schema: GraphQLSchema, definitions: readonly VariableDefinitionNode[], inputs: Readonly<Record<string, unknown>>,
  coerced: Record<string, unknown>, report: (error: AppError) => void,
): void {
  for (const definition of definitions) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type);
    // Validation has made sure of this; an operation that skipped it is run by graphql-js, which says so.
    if (!isInputType(type)) continue;
    if (!Object.hasOwn(inputs, name)) {
      if (definition.defaultValue) coerced[name] = valueFromAST(definition.defaultValue, type);
      else if (isNonNullType(type)) {
        report(appError('BAD_REQUEST', `Variable "$${name}" of required type "${inspect(type)}" was not provided.`, {
          nodes: definition,
        }));
      }
      continue;
    }
    const value = inputs[name];
    if (value === null && isNonNullType(type)) {
      report(appError('BAD_REQUEST', `Variable "$${name}" of non-null type "${inspect(type)}" must not be null.`, {
        nodes: definition,
      }));
      continue;
    }
    let fieldProblems: FieldProblems | undefined;
    coerced[name] = coerceInputValue(value, type, (path, invalid, error) => {
      fieldProblems ??= new FieldProblems(type);
      const at = path.length > 0 ? ` at "${name}${printPathArray(path)}"` : '';
      const prefix = `Variable "$${name}" got invalid value ${inspect(invalid)}${at}; `;
      const field = fieldProblems.next(path, invalid);
      const code = isAppError(error) ? error.extensions.code : 'BAD_REQUEST';
      if (!field) {
        report(appError(code, prefix + error.message, {
          nodes: definition, input: { path: [name, ...path], problem: 'invalid', detail: error.message },
        }));
        return;
      }
      const input: InputProblem = { path: [name, ...path, field.name], problem: field.problem, detail: field.reason ?? '' };
      // A field the client may not send says why, instead of graphql-js's guess at what was meant.
      const message = field.reason ? `Field "${field.name}" is not defined by type "${field.type}": ${field.reason}.` : error.message;
      report(appError(code, prefix + message, { nodes: definition, input }));
    });
  }
}

interface FieldProblem {
  readonly name: string;
  readonly type: string;
  readonly problem: 'unknown' | 'missing';
  readonly reason?: string;
}

/**
 * graphql-js reports a missing or unknown field of an input object at the object's path, naming the field
 * only in its message: the field is found here by walking the object against its type, in the order
 * graphql-js reports them (missing fields in the type's order, then unknown ones in the object's).
 */
class FieldProblems {
  readonly #found = new Map<string, { problems: FieldProblem[]; told: number }>();

  constructor(private readonly root: GraphQLInputType) {}

  next(path: Path, value: unknown): FieldProblem | undefined {
    const key = JSON.stringify(path);
    let found = this.#found.get(key);
    if (!found) this.#found.set(key, found = { problems: this.#walk(path, value), told: 0 });
    // Past them: an error about the object as a whole (a oneOf input), not one of its fields.
    return found.problems[found.told++];
  }

  #walk(path: Path, value: unknown): FieldProblem[] {
    const type = getNullableType(typeAt(this.root, path));
    if (!isInputObjectType(type) || typeof value !== 'object' || value === null || Array.isArray(value)) return [];
    const fields = type.getFields();
    const object = value as Record<string, unknown>;
    return [
      ...Object.values(fields)
        .filter((f) => object[f.name] === undefined && f.defaultValue === undefined && isNonNullType(f.type))
        .map((f) => ({ name: f.name, type: type.name, problem: 'missing' as const })),
      ...Object.keys(object).filter((key) => !Object.hasOwn(fields, key))
        .map((key) => ({ name: key, type: type.name, problem: 'unknown' as const, reason: fixedFieldReason(type.name, key) })),
    ];
  }
}

/** The type of the value at `path` below a value of type `root`. */
function typeAt(root: GraphQLInputType, path: Path): GraphQLInputType {
  let type: GraphQLInputType = root;
  for (const segment of path) {
    const nullable = getNullableType(type);
    if (typeof segment === 'number' && isListType(nullable)) type = nullable.ofType;
    else if (typeof segment === 'string' && isInputObjectType(nullable)) type = nullable.getFields()[segment]!.type;
  }
  return type;
}
