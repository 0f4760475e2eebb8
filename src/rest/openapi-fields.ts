import { isInputObjectType, isNonNullType, isObjectType, type GraphQLSchema } from 'graphql';
import type { OpenAPIV3 } from 'openapi-types';
import { valueRulesOf, type ValueRules } from '../schema/extensions.js';

type Schema = OpenAPIV3.SchemaObject;
type SchemaOrRef = Schema | OpenAPIV3.ReferenceObject;

/**
 * OpenAPI 3.0 says null with `nullable: true` beside a `type`, and only there: it cannot widen a `$ref`, which
 * takes no sibling, nor an `allOf` that refers on (AJV and the 3.0.3 wording agree). A reference that may be
 * null is one of the referred schema or a schema that holds only null.
 */
export function orNull(schema: SchemaOrRef): SchemaOrRef {
  if (!('$ref' in schema)) return { ...schema, nullable: true };
  const { $ref, ...siblings } = schema as OpenAPIV3.ReferenceObject & Schema;
  return { ...siblings, oneOf: [{ $ref }, { enum: [null] }] };
}

/** A field's rules merged into its schema: `nullable` by orNull, the limits beside its type. */
function withRules(schema: SchemaOrRef, { nullable, ...limits }: ValueRules): SchemaOrRef {
  const limited = '$ref' in schema ? schema : { ...schema, ...limits };
  return nullable ? orNull(limited) : limited;
}

/**
 * SOFA's component schemas completed from the GraphQL types they were made from: an output field GraphQL may
 * answer null for is nullable, and every output field is required (sent, even as null); an input object refuses unknown fields, may omit a field that has a default,
 * and states the rules its fields' checks enforce (valueRules in the field's extensions).
 */
export function completeSchemas(schemas: Record<string, SchemaOrRef>, schema: GraphQLSchema): void {
  for (const [name, type] of Object.entries(schema.getTypeMap())) {
    const target = schemas[name] as Schema | undefined;
    if (!target?.properties) continue;
    const properties = target.properties;
    if (isObjectType(type)) {
      for (const [fieldName, field] of Object.entries(type.getFields())) {
        if (properties[fieldName] && !isNonNullType(field.type)) properties[fieldName] = orNull(properties[fieldName]);
      }
      // A route's operation selects every field REST serves: each is in every answer, null or not.
      target.required = Object.keys(properties).sort();
    }
    if (!isInputObjectType(type)) continue;
    // GraphQL input objects refuse unknown fields, and so does the REST body.
    target.additionalProperties = false;
    for (const [fieldName, field] of Object.entries(type.getFields())) {
      if (!properties[fieldName]) continue;
      const rules = valueRulesOf(field.extensions);
      if (rules) properties[fieldName] = withRules(properties[fieldName], rules);
      // A field with a default may be omitted; SOFA lists it as required because it is non-null.
      if (field.defaultValue === undefined) continue;
      target.required = target.required?.filter((f) => f !== fieldName);
      (properties[fieldName] as Schema).default = field.defaultValue;
    }
  }
}
