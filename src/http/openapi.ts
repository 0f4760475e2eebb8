import { isInputObjectType, type GraphQLSchema } from 'graphql';
import type { OpenAPIV3 } from 'openapi-types';
import { BODY_LIMIT_BYTES } from './body.js';
import { BODY_ARGUMENT, REST_BASE, routedFields, type RoutedField } from './rest-routes.js';
import { PLANS } from '../limits/plans.js';
import { PAGE_SIZE, type FieldLifecycle } from '../schema/pet.js';

type Document = OpenAPIV3.Document;
type Operation = OpenAPIV3.OperationObject;
type Parameter = OpenAPIV3.ParameterObject;
type Described = OpenAPIV3.ParameterBaseObject;
type Schema = OpenAPIV3.SchemaObject;
type SchemaOrRef = Schema | OpenAPIV3.ReferenceObject;

const plans = Object.entries(PLANS).map(([plan, limits]) =>
  `| ${plan} | ${limits ? limits.perMinute.toLocaleString('en') : 'custom'} | ${limits ? limits.perDay.toLocaleString('en') : 'custom'} |`);

const DESCRIPTION = `An HTTP and JSON interface to a store of animals: list them, add one, fetch one (deprecated).
The same operations are served as GraphQL at \`/graphql\`.

## Authentication
Every operation needs an API key: \`Authorization: Bearer <key>\` (the scheme in any case). A missing,
unknown or revoked key gets \`401 UNAUTHENTICATED\` with \`WWW-Authenticate: Bearer\`.

## Rate limits
Each key has two fixed windows, a minute and a day, by plan:

| Plan | Requests per minute | Requests per day |
|---|---|---|
${plans.join('\n')}

Every response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` (this request counted) and
\`X-RateLimit-Reset\` (unix seconds) for the window with the fewest requests remaining (the shorter one on
a tie). Over a limit: \`429 RATE_LIMITED\` with \`Retry-After\` seconds; refused requests count against no
window. Back off exponentially: by default, 20 refused requests within a minute ban the key for 10 minutes
(\`429 API_KEY_BANNED\`, \`Retry-After\` the rest of the ban). Requests without a valid key are limited per
client address (60 a minute).

## Terms of use
A private API: using it needs an API key from the service's operator. The API and this document are
proprietary; no licence to them is granted.`;

const ref = (kind: 'schemas' | 'responses' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

const ERRORS: Record<string, [name: string, description: string]> = {
  400: ['BadRequest', 'The request is malformed: bad parameters, or a body with missing, invalid or unknown fields.'],
  401: ['Unauthenticated', 'The API key is missing, unknown or revoked.'],
  404: ['NotFound', 'The requested resource could not be found.'],
  413: ['PayloadTooLarge', `The request body is over ${BODY_LIMIT_BYTES / 1024} KiB.`],
  415: ['UnsupportedMediaType', 'The request body is not `application/json`.'],
  429: ['TooManyRequests', 'Over a rate limit (`RATE_LIMITED`), or the key is temporarily banned (`API_KEY_BANNED`). Retry after `Retry-After` seconds, backing off exponentially.'],
  500: ['Internal', 'An unexpected error; the `X-Request-Id` header identifies it in the logs.'],
  503: ['Unavailable', 'The database is unreachable; retry shortly.'],
};

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset'),
  'X-Request-Id': ref('headers', 'X-Request-Id'),
};

function components(): OpenAPIV3.ComponentsObject {
  const integer = (description: string) => ({ description, schema: { type: 'integer' as const } });
  return {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer <key>`.' },
    },
    headers: {
      'X-RateLimit-Limit': integer('The limit in force: requests allowed in the window with the fewest requests remaining.'),
      'X-RateLimit-Remaining': integer('Requests remaining in that window, this one counted.'),
      'X-RateLimit-Reset': integer('Unix time, in seconds, at which that window resets.'),
      'Retry-After': integer('Seconds to wait before retrying.'),
      'X-Request-Id': { description: 'Identifies the request in the service\'s logs; an incoming one is kept.', schema: { type: 'string' } },
      Deprecation: { description: 'RFC 9745: the operation is deprecated, since this date (`@` unix seconds).', schema: { type: 'string' } },
      Sunset: { description: 'RFC 8594: the HTTP date on which the operation will be removed.', schema: { type: 'string' } },
    },
    schemas: {
      Error: {
        type: 'object',
        required: ['code', 'message', 'status'],
        additionalProperties: false,
        properties: {
          code: { type: 'string', description: 'Machine-readable error code.', example: 'BAD_REQUEST' },
          message: { type: 'string', description: 'Human-readable description.' },
          status: { type: 'integer', description: 'The HTTP status code of the response.' },
        },
      },
    },
    responses: Object.fromEntries(Object.entries(ERRORS).map(([status, [name, description]]) => [name, {
      description,
      headers: status === '429' ? { ...RATE_LIMIT_HEADERS, 'Retry-After': ref('headers', 'Retry-After') } : RATE_LIMIT_HEADERS,
      content: { 'application/json': { schema: ref('schemas', 'Error') } },
    }])),
  };
}

/** Which errors each operation can answer with, beyond those every operation can. */
function errorStatuses({ route }: RoutedField): number[] {
  const statuses = [400, 401, 429, 500, 503];
  if (route.method === 'POST') statuses.push(413, 415);
  if (route.path.includes(':')) statuses.push(404);
  return statuses.sort();
}

function completeOperation(operation: Operation, routed: RoutedField): void {
  const { route, field } = routed;
  const lifecycle = field.extensions.lifecycle as FieldLifecycle | undefined;
  operation.operationId = route.operationId;
  operation.summary = field.description ?? undefined;
  if (field.deprecationReason) {
    operation.deprecated = true;
    operation.description = `Deprecated: ${field.deprecationReason}`;
  } else {
    delete operation.description;
  }

  if (route.method === 'POST') {
    // The body is the argument itself (see rest.ts); SOFA also lists it as a query parameter.
    const argument = field.args.find((a) => a.name === BODY_ARGUMENT);
    operation.parameters = (operation.parameters ?? []).filter((p) => !('name' in p) || p.name !== BODY_ARGUMENT);
    if (operation.parameters.length === 0) delete operation.parameters;
    operation.requestBody = {
      required: true,
      description: argument?.description ?? undefined,
      content: { 'application/json': { schema: ref('schemas', String(argument?.type).replace(/!$/, '')) } },
    };
  }
  for (const parameter of operation.parameters ?? []) {
    if (!('name' in parameter) || parameter.name !== 'limit') continue;
    Object.assign(parameter.schema as Schema, { minimum: PAGE_SIZE.min, maximum: PAGE_SIZE.max, default: PAGE_SIZE.default });
  }

  const [status, success] = Object.entries(operation.responses)[0] as [string, OpenAPIV3.ResponseObject];
  const lifecycleHeaders: Record<string, OpenAPIV3.ReferenceObject> = lifecycle
    ? { Deprecation: ref('headers', 'Deprecation'), Sunset: ref('headers', 'Sunset') }
    : {};
  operation.responses = {
    [status]: {
      ...success,
      description: status === '201' ? 'Created: the stored record, with its assigned `id`.' : 'OK',
      headers: { ...RATE_LIMIT_HEADERS, ...lifecycleHeaders },
    },
    ...Object.fromEntries(errorStatuses(routed).map((s) => [s, ref('responses', ERRORS[s]![0])])),
  };
}

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
function withoutRefSiblings(doc: Document): Document {
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

/**
 * SOFA's document describes the GraphQL side of each route; this completes it into the REST API the
 * spec describes: operation names, the body as sent, the Error body and statuses, auth and headers.
 */
export function completeOpenApi(sofaDocument: Document, schema: GraphQLSchema): Document {
  const doc = structuredClone(sofaDocument);
  const routes = routedFields(schema).map((routed) => ({ routed, path: routed.route.path.replace(/:(\w+)/g, '{$1}') }));
  // The spec's order (list, add, get) rather than SOFA's.
  doc.paths = Object.fromEntries(routes.map(({ path }) => [path, doc.paths[path]]));
  for (const { routed, path } of routes) {
    const operation = doc.paths[path]?.[routed.route.method.toLowerCase() as OpenAPIV3.HttpMethods];
    if (!operation) throw new Error(`SOFA made no operation for ${routed.key}`);
    completeOperation(operation, routed);
  }

  const schemas = doc.components?.schemas ?? {};
  delete schemas.Query;
  delete schemas.Mutation;
  for (const [name, type] of Object.entries(schema.getTypeMap())) {
    const target = schemas[name] as Schema | undefined;
    if (!target || !isInputObjectType(type)) continue;
    // GraphQL input objects refuse unknown fields, and so does the REST body.
    target.additionalProperties = false;
    // An input field with a default may be omitted; SOFA lists it as required because it is non-null.
    for (const [fieldName, fieldDef] of Object.entries(type.getFields())) {
      if (fieldDef.defaultValue === undefined) continue;
      target.required = target.required?.filter((f) => f !== fieldName);
      (target.properties![fieldName] as Schema).default = fieldDef.defaultValue;
    }
  }

  const extra = components();
  return withoutRefSiblings({
    openapi: doc.openapi,
    info: {
      title: 'Animal Store API',
      version: '1.0.0',
      description: DESCRIPTION,
      // A private service that grants no licence: a name, not an SPDX id, which would suggest one. There is no
      // licence text to link to; the url (Redocly's info-license-strict asks for one) is the docs page, which
      // shows the terms of use above. Root-relative like `servers`, so it means the same to every resolver.
      license: { name: 'Proprietary', url: `${REST_BASE}/docs` },
    },
    servers: doc.servers,
    security: [{ bearerAuth: [] }],
    tags: [{ name: 'pets', description: 'Animals of the store.' }],
    paths: doc.paths,
    components: { ...extra, schemas: { ...schemas, ...extra.schemas } },
  });
}
