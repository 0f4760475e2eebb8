import { isInputObjectType, type GraphQLSchema } from 'graphql';
import type { OpenAPIV3 } from 'openapi-types';
import { BODY_LIMIT_BYTES } from '../pipeline/body.js';
import { withoutRefSiblings } from './openapi-refs.js';
import { BODY_ARGUMENT, BODY_TYPES, REST_BASE, routedFields, takesIdempotencyKey, type RoutedField } from './routes.js';
import { PLANS } from '../domain/plans.js';
import { PAGE_SIZE } from '../domain/ids.js';
import type { FieldLifecycle } from '../schema/pet.js';

type Document = OpenAPIV3.Document;
type Operation = OpenAPIV3.OperationObject;
type Schema = OpenAPIV3.SchemaObject;

const plans = Object.entries(PLANS).map(([plan, limits]) =>
  `| ${plan} | ${limits ? limits.perMinute.toLocaleString('en') : 'custom'} | ${limits ? limits.perDay.toLocaleString('en') : 'custom'} |`);

const DESCRIPTION = `An HTTP and JSON interface to a store of animals: list them, add one, fetch one (deprecated),
change or remove one, and order them. The same operations are served as GraphQL at \`/graphql\`, with live
events (subscriptions) besides.

## Orders and the animal's status
An order is \`placed\`, then \`approved\`, then \`delivered\`; a placed or approved order can be
\`cancelled\`. Any other move is \`409 CONFLICT\`. The animal follows its order in the same transaction:
ordering needs an \`available\` animal and makes it \`pending\`; delivery makes it \`sold\`; cancelling
makes it \`available\` again. An animal's status changes only this way: a change (\`PATCH\`) may set its
\`name\` and \`categoryId\`, never its \`status\`. An animal that has orders cannot be deleted (\`409\`).

## Authentication
Every operation needs an API key: \`Authorization: Bearer <key>\` (the scheme in any case). A missing,
unknown, mistyped (its checksum does not match), expired or revoked key gets \`401 UNAUTHENTICATED\` with
\`WWW-Authenticate: Bearer\`; the message says which.

## Rate limits
Each key has two fixed windows, a minute (reset at every whole minute) and a day (reset at 00:00 UTC), by
plan:

| Plan | Requests per minute | Requests per day |
|---|---|---|
${plans.join('\n')}

Every REST call costs one point of this budget. The same budget serves GraphQL at \`/graphql\`, where an
operation costs one point per root field it selects, aliases included. Every response carries
\`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` (points left, this request counted) and
\`X-RateLimit-Reset\` (unix seconds) for the window with the fewest points remaining (the shorter one on
a tie), and the IETF draft's \`RateLimit-Policy\` and \`RateLimit\` fields for every window. Over a limit: \`429 RATE_LIMITED\` with \`Retry-After\` seconds; refused requests count against no
window. Back off exponentially: by default, 20 refused requests within a minute ban the key for 10 minutes
(\`429 API_KEY_BANNED\`, \`Retry-After\` the rest of the ban). Requests without a valid key are limited per
client address (60 a minute).

## Terms of use
A private API: using it needs an API key from the service's operator. The API and this document are
proprietary; no licence to them is granted.`;

const ref = (kind: 'schemas' | 'responses' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

const ERRORS: Record<string, [name: string, description: string]> = {
  400: ['BadRequest', 'The request is malformed: bad parameters, or a body with missing, invalid or unknown fields.'],
  401: ['Unauthenticated', 'The API key is missing, unknown, mistyped, expired or revoked.'],
  404: ['NotFound', 'The requested resource could not be found.'],
  409: ['Conflict', 'The store\'s rules forbid the change (`CONFLICT`): the animal is not available, the order cannot move to that status, or the animal has orders. Or (`IDEMPOTENCY_IN_PROGRESS`, with `Retry-After`) the first request with this `Idempotency-Key` is still running.'],
  408: ['RequestTimeout', 'The request (`REQUEST_TIMEOUT`) was not received within the server\'s time limits; the connection is closed.'],
  422: ['IdempotencyKeyReused', 'The `Idempotency-Key` was used with a different request (`IDEMPOTENCY_KEY_REUSED`): use a new key.'],
  413: ['PayloadTooLarge', `The request body is over ${BODY_LIMIT_BYTES / 1024} KiB.`],
  415: ['UnsupportedMediaType', 'The request body is not `application/json` (or, for a change, `application/merge-patch+json`).'],
  429: ['TooManyRequests', 'Over a rate limit (`RATE_LIMITED`), or the key is temporarily banned (`API_KEY_BANNED`). Retry after `Retry-After` seconds, backing off exponentially.'],
  431: ['HeadersTooLarge', 'The request line and headers (`HEADERS_TOO_LARGE`) are over the server\'s limit; the connection is closed.'],
  500: ['Internal', 'An unexpected error; the `X-Request-Id` header identifies it in the logs.'],
  503: ['Unavailable', 'The database is unreachable or too slow, or this instance is shutting down (then with `Retry-After`); retry shortly.'],
};

/** Refused by the HTTP layer before the request is read: counted against no budget, so no limit headers. */
const BEFORE_LIMITS = new Set(['408', '431']);

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset'),
  'RateLimit-Policy': ref('headers', 'RateLimit-Policy'),
  RateLimit: ref('headers', 'RateLimit'),
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
      'RateLimit-Policy': {
        description: 'IETF httpapi ratelimit-headers draft (a Structured Fields list): each window of the caller\'s plan as a policy, '
          + 'its quota `q` and its length `w` in seconds. Example: `"minute";q=60;w=60, "day";q=1000;w=86400`.',
        schema: { type: 'string' },
      },
      RateLimit: {
        description: 'IETF httpapi ratelimit-headers draft: each policy\'s remaining quota `r` (this request counted) and the seconds `t` '
          + 'until it resets. Example: `"minute";r=41;t=23, "day";r=958;t=40000`. On a 429, the refusing policy with `r=0`.',
        schema: { type: 'string' },
      },
      'X-Request-Id': { description: 'Identifies the request in the service\'s logs; an incoming one is kept.', schema: { type: 'string' } },
      Deprecation: { description: 'RFC 9745: the operation is deprecated, since this date (`@` unix seconds).', schema: { type: 'string' } },
      Sunset: { description: 'RFC 8594: the HTTP date on which the operation will be removed.', schema: { type: 'string' } },
      Location: { description: 'Where the created record lives: its URL path, which a GET answers.', schema: { type: 'string' } },
      'Idempotent-Replayed': {
        description: '`true` on a response given again to a retry with the same `Idempotency-Key` and body: nothing was created this time.',
        schema: { type: 'string', enum: ['true'] },
      },
      Link: {
        description: 'RFC 8288: `</v1/...?limit=20&cursor=...>; rel="next"` when a next page may follow: the same request with the next '
          + 'page\'s cursor (keyset pages: a page deep in the list costs what the first costs). Absent on the last page.',
        schema: { type: 'string' },
      },
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
      headers: BEFORE_LIMITS.has(status) ? { 'X-Request-Id': ref('headers', 'X-Request-Id') }
        : status === '429' || status === '503' || status === '409' ? { ...RATE_LIMIT_HEADERS, 'Retry-After': ref('headers', 'Retry-After') }
          : RATE_LIMIT_HEADERS,
      content: { 'application/json': { schema: ref('schemas', 'Error') } },
    }])),
  };
}

/** Which errors each operation can answer with, beyond those every operation can. */
function errorStatuses({ route }: RoutedField): number[] {
  const statuses = new Set([400, 401, 408, 429, 431, 500, 503, ...(route.errors ?? [])]);
  if (BODY_TYPES[route.method]) [413, 415].forEach((s) => statuses.add(s));
  if (takesIdempotencyKey(route)) [409, 422].forEach((s) => statuses.add(s));
  if (route.path.includes(':')) statuses.add(404);
  return [...statuses].sort();
}

const SUCCESS: Record<string, string> = { 201: 'Created: the stored record, with its assigned `id`.' };

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

  const bodyTypes = BODY_TYPES[route.method];
  if (bodyTypes) {
    // The body is the argument itself (see rest.ts); SOFA also lists it as a query parameter.
    const argument = field.args.find((a) => a.name === BODY_ARGUMENT);
    operation.parameters = (operation.parameters ?? []).filter((p) => !('name' in p) || p.name !== BODY_ARGUMENT);
    if (operation.parameters.length === 0) delete operation.parameters;
    const schema = ref('schemas', String(argument?.type).replace(/!$/, ''));
    operation.requestBody = {
      required: true,
      description: argument?.description ?? undefined,
      content: Object.fromEntries(bodyTypes.map((type) => [type, { schema }])),
    };
  } else {
    delete operation.requestBody;
  }
  for (const parameter of operation.parameters ?? []) {
    if (!('name' in parameter) || parameter.name !== 'limit') continue;
    Object.assign(parameter.schema as Schema, { minimum: PAGE_SIZE.min, maximum: PAGE_SIZE.max, default: PAGE_SIZE.default });
  }

  const [sofaStatus, success] = Object.entries(operation.responses)[0] as [string, OpenAPIV3.ResponseObject];
  const status = route.noContent ? '204' : sofaStatus;
  const lifecycleHeaders: Record<string, OpenAPIV3.ReferenceObject> = lifecycle
    ? { Deprecation: ref('headers', 'Deprecation'), Sunset: ref('headers', 'Sunset') }
    : {};
  const paged = (operation.parameters ?? []).some((p) => 'name' in p && p.name === 'cursor');
  const headers = {
    ...RATE_LIMIT_HEADERS, ...lifecycleHeaders,
    ...(route.location ? { Location: ref('headers', 'Location') } : {}),
    ...(paged ? { Link: ref('headers', 'Link') } : {}),
    ...(takesIdempotencyKey(route) ? { 'Idempotent-Replayed': ref('headers', 'Idempotent-Replayed') } : {}),
  };
  if (takesIdempotencyKey(route)) {
    operation.parameters = [...(operation.parameters ?? []), {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'IETF httpapi Idempotency-Key draft: send a unique key (1 to 255 visible ASCII characters) to make a retry safe. '
        + 'The first response is kept 24 h per API key and given again, with `Idempotent-Replayed: true`, to a retry with the same key '
        + 'and body; the same key with another body is 422; a retry while the first still runs is 409. Errors are not kept.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
    }];
  }
  operation.responses = {
    [status]: route.noContent
      ? { description: 'Done; no content.', headers }
      : { ...success, description: SUCCESS[status] ?? 'OK', headers },
    ...Object.fromEntries(errorStatuses(routed).map((s) => [s, ref('responses', ERRORS[s]![0])])),
  };
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
    tags: [{ name: 'pets', description: 'Animals of the store.' }, { name: 'store', description: 'Orders for the animals.' }, { name: 'limits', description: 'Your key\'s quota, free to ask.' }],
    paths: doc.paths,
    components: { ...extra, schemas: { ...schemas, ...extra.schemas } },
  });
}
