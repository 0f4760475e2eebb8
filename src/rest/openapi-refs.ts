import type { OpenAPIV3 } from 'openapi-types';

type Document = OpenAPIV3.Document;
type Parameter = OpenAPIV3.ParameterObject;
type Described = OpenAPIV3.ParameterBaseObject;
type Schema = OpenAPIV3.SchemaObject;
type SchemaOrRef = Schema | OpenAPIV3.ReferenceObject;

/**
 * OpenAPI 3.0 ignores everything beside a `$ref` (Redocly's spec-ref-siblings), so a description or a
 * default written there is lost to every tool. Keep them by wrapping the reference, at any depth:
 * `{ allOf: [{ $ref }], description }`.
 */
function refWithoutSiblings(schema: SchemaOrRef): SchemaOrRef {
  if ('$ref' in schema) {
    const { $ref, ...siblings } = schema as OpenAPIV3.ReferenceObject & Schema;
    return Object.keys(siblings).length === 0 ? { $ref } : { allOf: [{ $ref }], ...siblings };
  }
  const out = { ...schema } as Schema & { items?: SchemaOrRef };
  if (out.properties) {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([name, s]) => [name, refWithoutSiblings(s)]));
  }
  if (out.items) out.items = refWithoutSiblings(out.items);
  if (typeof out.additionalProperties === 'object') out.additionalProperties = refWithoutSiblings(out.additionalProperties);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) out[key] &&= out[key].map(refWithoutSiblings);
  if (out.not) out.not = refWithoutSiblings(out.not);
  return out;
}

/**
 * SOFA describes an argument inside its parameter's schema, where Swagger UI does not show it and,
 * beside the `$ref` of an enum, OpenAPI ignores it: the description belongs to the parameter (or header).
 */
function describeParameter<T extends Described>(parameter: T): T {
  const { schema, ...rest } = parameter;
  if (!schema) return parameter;
  const { description, ...schemaRest } = schema as Schema;
  const described = description !== undefined && rest.description === undefined
    ? { ...rest, description, schema: refWithoutSiblings(schemaRest) }
    : { ...rest, schema: refWithoutSiblings(schema) };
  return described as T;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Every parameter described on itself, and every schema of the document free of `$ref` siblings. */
export function withoutRefSiblings(doc: Document): Document {
  const content = (media: Record<string, OpenAPIV3.MediaTypeObject> = {}) => {
    for (const type of Object.values(media)) if (type.schema) type.schema = refWithoutSiblings(type.schema);
  };
  const headers = (map: Record<string, OpenAPIV3.HeaderObject | OpenAPIV3.ReferenceObject> = {}) => {
    for (const [name, header] of Object.entries(map)) if (!('$ref' in header)) map[name] = describeParameter(header);
  };
  const response = (r: OpenAPIV3.ResponseObject | OpenAPIV3.ReferenceObject) => {
    if ('$ref' in r) return;
    content(r.content);
    headers(r.headers);
  };
  const parameters = (list?: (Parameter | OpenAPIV3.ReferenceObject)[]) => list?.map((p) => ('$ref' in p ? p : describeParameter(p)));
  for (const item of Object.values(doc.paths)) {
    if (!item) continue;
    if (item.parameters) item.parameters = parameters(item.parameters);
    for (const operation of METHODS.map((method) => item[method]).filter((op) => op !== undefined)) {
      if (operation.parameters) operation.parameters = parameters(operation.parameters);
      if (operation.requestBody && !('$ref' in operation.requestBody)) content(operation.requestBody.content);
      Object.values(operation.responses).forEach(response);
    }
  }
  const { schemas = {}, responses = {} } = doc.components ?? {};
  for (const [name, schema] of Object.entries(schemas)) schemas[name] = refWithoutSiblings(schema);
  Object.values(responses).forEach(response);
  headers(doc.components?.headers);
  return doc;
}
