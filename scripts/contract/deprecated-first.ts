/**
 * A removal may be declared only when the release deprecated what it removes: "the deprecation that
 * preceded it" is then a fact of the released document, not only a date in the changelog. Changes of
 * another kind (a type narrowed, a parameter made required) have no deprecation to show: their entry's
 * citation is what the gate checks.
 */
import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, type GraphQLSchema } from 'graphql';
import type { Operation } from './openapi-operations.js';
import { templateOf } from './openapi-operations.js';

const deprecateFirst = (what: string, how: string) =>
  `${what} was not deprecated in the release: deprecate it (${how}) in a release before removing it`;

/** For a GraphQL removal by GraphQL Inspector's type and path: why it may not be declared, if it may not. */
export function graphqlRemoval(released: GraphQLSchema, type: string, path: string | undefined): string | undefined {
  if (!path) return undefined;
  const [typeName, member, argument] = path.split('.');
  const owner = typeName ? released.getType(typeName) : undefined;
  const how = '@deprecated';
  switch (type) {
    case 'FIELD_REMOVED': {
      if (!(isObjectType(owner) || isInterfaceType(owner))) return undefined;
      return owner.getFields()[member!]?.deprecationReason ? undefined : deprecateFirst(path, how);
    }
    case 'FIELD_ARGUMENT_REMOVED': {
      if (!(isObjectType(owner) || isInterfaceType(owner))) return undefined;
      const arg = owner.getFields()[member!]?.args.find((one) => one.name === argument);
      return arg?.deprecationReason ? undefined : deprecateFirst(path, how);
    }
    case 'INPUT_FIELD_REMOVED':
      if (!isInputObjectType(owner)) return undefined;
      return owner.getFields()[member!]?.deprecationReason ? undefined : deprecateFirst(path, how);
    case 'ENUM_VALUE_REMOVED':
      if (!isEnumType(owner)) return undefined;
      return owner.getValue(member!)?.deprecationReason ? undefined : deprecateFirst(path, how);
    default:
      return undefined;
  }
}

/**
 * For openapi-diff's path.remove and method.remove, by its location (`paths./pets/{petId}.get`): the
 * released operations there that the current document no longer has (openapi-diff is given only the
 * operations that differ, so one method gone may read as its path gone).
 */
export function operationRemoval(released: Map<string, Operation>, current: Map<string, Operation>, code: string, location: string): string | undefined {
  if (code !== 'path.remove' && code !== 'method.remove') return undefined;
  const where = location.replace(/^paths\./, '');
  const method = code === 'method.remove' ? /\.(\w+)$/.exec(where)?.[1] : undefined;
  const path = method ? where.slice(0, -(method.length + 1)) : where;
  const removed = [...released.entries()]
    .filter(([key, one]) => !current.has(key) && templateOf(one.path) === templateOf(path) && (!method || one.method === method))
    .map(([, one]) => one);
  const undeprecated = removed.filter((one) => one.operation.deprecated !== true);
  if (undeprecated.length === 0) return undefined;
  return deprecateFirst(undeprecated.map((one) => `${one.method.toUpperCase()} ${one.path}`).join(', '), '`deprecated: true`');
}

/** For the gate's own parameter.remove. */
export const parameterRemoval = (parameter: { deprecated?: unknown }, label: string): string | undefined =>
  (parameter.deprecated === true ? undefined : deprecateFirst(label, '`deprecated: true`'));
