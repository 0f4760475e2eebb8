import { MapperKind, mapSchema, pruneSchema } from '@graphql-tools/utils';
import {
  GraphQLList, GraphQLNonNull, GraphQLScalarType, isListType, isNonNullType, isScalarType, isSpecifiedDirective,
  type GraphQLSchema, type GraphQLType,
} from 'graphql';
import { isGraphQLOnly } from '../schema/extensions.js';

const NUMERIC_SCALARS = new Set(['Int', 'Float', 'SafeInt']);
/** Scalars whose parameters are decoded here: the numeric ones, and the string ones (their parseValue names the parameter). */
const DECODED_SCALARS = new Set([...NUMERIC_SCALARS, 'Cursor', 'EventType']);
const NUMERAL = /^-?\d+(\.\d+)?$/;

/**
 * SOFA decodes path and query strings with a scalar's `serialize` (sofa-api parse.js), so Int rejects
 * `limit=abc` before anything knows the value is called `limit`. In the schema SOFA sees, numerals become
 * numbers and every other string passes unchanged to `parseValue`, whose error names the parameter, as
 * for any GraphQL input. mapSchema never maps the built-in scalars, so their uses are swapped instead.
 */
function decodeNumerals(schema: GraphQLSchema): GraphQLSchema {
  const decoders = new Map<string, GraphQLScalarType>();
  const decoder = (type: GraphQLScalarType) => {
    let decoded = decoders.get(type.name);
    if (!decoded) {
      decoded = new GraphQLScalarType({
        ...type.toConfig(),
        // A repeated parameter arrives as an array: parseValue refuses it, naming the parameter too.
        serialize: (value) => (typeof value === 'string' ? (NUMERIC_SCALARS.has(type.name) && NUMERAL.test(value) ? Number(value) : value)
          : Array.isArray(value) ? value : type.serialize(value)),
      });
      decoders.set(type.name, decoded);
    }
    return decoded;
  };
  const swap = <T extends GraphQLType>(type: T): T => {
    if (isNonNullType(type)) return new GraphQLNonNull(swap(type.ofType)) as T;
    if (isListType(type)) return new GraphQLList(swap(type.ofType)) as T;
    return (isScalarType(type) && DECODED_SCALARS.has(type.name) ? decoder(type) : type) as T;
  };
  return mapSchema(schema, {
    [MapperKind.SCALAR_TYPE]: (type) => (DECODED_SCALARS.has(type.name) ? decoder(type) : type),
    [MapperKind.ARGUMENT]: (config) => ({ ...config, type: swap(config.type) }),
    [MapperKind.INPUT_OBJECT_FIELD]: (config) => ({ ...config, type: swap(config.type) }),
    [MapperKind.COMPOSITE_FIELD]: (config) => ({ ...config, type: swap(config.type) }),
  });
}

/**
 * The schema SOFA builds its routes and responses from: no subscriptions (live events are GraphQL's), no
 * directive of GraphQL's own (@defer, @stream), no field or interface marked GRAPHQL_ONLY, no type left unreachable by their removal, and parameters decoded from text.
 */
export function restSchema(schema: GraphQLSchema): GraphQLSchema {
  return decodeNumerals(pruneSchema(mapSchema(schema, {
    [MapperKind.SUBSCRIPTION]: () => null,
    // @defer and @stream are GraphQL's (a route's answer is one JSON body); left, their Int argument kept
    // the built-in Int in the schema beside the decoding one, and `limit=abc` lost the parameter's name.
    [MapperKind.DIRECTIVE]: (directive) => (isSpecifiedDirective(directive) ? directive : null),
    [MapperKind.COMPOSITE_FIELD]: (config) => (isGraphQLOnly(config.extensions) ? null : config),
    // The Node interface, whose one field is GraphQL's: left, it would be an interface without fields.
    [MapperKind.INTERFACE_TYPE]: (type) => (isGraphQLOnly(type.extensions) ? null : type),
  })));
}
