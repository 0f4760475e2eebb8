import type { GraphQLSchema } from 'graphql';
import type { OpenAPIV3 } from 'openapi-types';
import { PAGE_SIZE } from '../domain/ids.js';
import { IF_NONE_MATCH_MAX_LENGTH } from '../pipeline/use-request-checks.js';
import { lifecycleOf } from '../schema/extensions.js';
import { fieldUses, type FieldUse } from '../schema/requirements.js';
import { components, ERRORS, RATE_LIMIT_HEADERS, ref } from './openapi-components.js';
import { DESCRIPTION } from './openapi-description.js';
import { completeSchemas } from './openapi-fields.js';
import { withoutRefSiblings } from './openapi-refs.js';
import { BODY_ARGUMENT, bodyTypesOf, REST_BASE, routedFields, takesIdempotencyKey, type RoutedField } from './routes.js';

type Document = OpenAPIV3.Document;
type Operation = OpenAPIV3.OperationObject;
type Schema = OpenAPIV3.SchemaObject;

/** Which errors each operation can answer with, beyond those every operation can. */
function errorStatuses({ route, field }: RoutedField, use: FieldUse): number[] {
  const statuses = new Set([400, 401, 408, 429, 431, 500, 503, ...(route.errors ?? [])]);
  // Only the quota look-up needs no scope: it answers every key.
  if (use.scopes.size > 0) statuses.add(403);
  if (bodyTypesOf(route, field)) [413, 415].forEach((s) => statuses.add(s));
  if (takesIdempotencyKey(route)) [409, 422].forEach((s) => statuses.add(s));
  if (route.path.includes(':')) statuses.add(404);
  return [...statuses].sort();
}

const SUCCESS: Record<string, string> = { 201: 'Created: the stored record, with its assigned `id`.' };

function completeOperation(operation: Operation, routed: RoutedField, use: FieldUse): void {
  const { route, field } = routed;
  const lifecycle = lifecycleOf(field.extensions);
  const scopes = [...use.scopes.keys()];
  operation.operationId = route.operationId;
  operation.summary = field.description ?? undefined;
  const scoped = scopes.length > 0
    ? `A restricted key needs the ${scopes.map((s) => `\`${s}\``).join(' and ')} scope${scopes.length > 1 ? 's' : ''}.`
    : 'Every key may call it, restricted or not.';
  operation.description = field.deprecationReason ? `Deprecated: ${field.deprecationReason}\n\n${scoped}` : scoped;
  (operation as Operation & { 'x-required-scopes'?: string[] })['x-required-scopes'] = scopes;
  if (field.deprecationReason) operation.deprecated = true;

  const bodyTypes = bodyTypesOf(route, field);
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
    if (!('name' in parameter)) continue;
    // SOFA describes a parameter inside its schema, taken from the first field with an argument of its name
    // (orderId said "The identifier of the animal"): the parameter says what this field's argument is.
    const argument = field.args.find((a) => a.name === parameter.name);
    if (parameter.schema) delete (parameter.schema as Schema).description;
    parameter.description = argument?.description ?? undefined;
    if (parameter.name !== 'limit') continue;
    Object.assign(parameter.schema as Schema, { minimum: PAGE_SIZE.min, maximum: PAGE_SIZE.max, default: PAGE_SIZE.default });
  }

  const [sofaStatus, success] = Object.entries(operation.responses)[0] as [string, OpenAPIV3.ResponseObject];
  const status = route.noContent ? '204' : sofaStatus;
  const lifecycleHeaders: Record<string, OpenAPIV3.ReferenceObject> = lifecycle
    ? { Deprecation: ref('headers', 'Deprecation'), Sunset: ref('headers', 'Sunset') }
    : {};
  // Lists walk by cursor, the event feed by event id: both say where the next page is in Link.
  const paged = (operation.parameters ?? []).some((p) => 'name' in p && (p.name === 'cursor' || (p.name === 'after' && p.in === 'query')));
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
  const read = route.method === 'GET';
  if (read) {
    operation.parameters = [...(operation.parameters ?? []), {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'The `ETag` of an answer you hold: while the answer is unchanged, the service says `304 Not Modified` without '
        + 'a body, and takes no point from the key\'s limits.',
      schema: { type: 'string', minLength: 1, maxLength: IF_NONE_MATCH_MAX_LENGTH },
    }];
  }
  const validators: Record<string, OpenAPIV3.ReferenceObject> = read ? { ETag: ref('headers', 'ETag'), 'Cache-Status': ref('headers', 'Cache-Status') } : {};
  operation.responses = {
    [status]: route.noContent
      ? { description: 'Done; no content.', headers }
      : { ...success, description: SUCCESS[status] ?? 'OK', headers: { ...headers, ...validators } },
    ...(read ? {
      304: {
        description: 'Not Modified: the answer is still the one whose `ETag` the request\'s `If-None-Match` named. No body; no point taken '
          + '(the rate-limit headers show the windows as they stand).',
        headers: { ...RATE_LIMIT_HEADERS, ...lifecycleHeaders, ...validators },
      },
    } : {}),
    ...Object.fromEntries(errorStatuses(routed, use).map((s) => [s, ref('responses', ERRORS[s]![0])])),
  };
}

/**
 * SOFA's document describes the GraphQL side of each route; this completes it into the REST API the
 * spec describes: operation names, the body as sent, the Error body and statuses, auth and headers.
 */
export function completeOpenApi(sofaDocument: Document, schema: GraphQLSchema): Document {
  const doc = structuredClone(sofaDocument);
  const routes = routedFields(schema).map((routed) => ({ routed, path: routed.route.path.replace(/:(\w+)/g, '{$1}') }));
  const uses = fieldUses(schema);
  // The spec's order (list, add, get) rather than SOFA's.
  doc.paths = Object.fromEntries(routes.map(({ path }) => [path, doc.paths[path]]));
  for (const { routed, path } of routes) {
    const operation = doc.paths[path]?.[routed.route.method.toLowerCase() as OpenAPIV3.HttpMethods];
    if (!operation) throw new Error(`SOFA made no operation for ${routed.key}`);
    completeOperation(operation, routed, uses.ofRoute(routed.typeName, routed.field));
  }

  const schemas = doc.components?.schemas ?? {};
  delete schemas.Query;
  delete schemas.Mutation;
  // An enum SOFA writes inline where it is used (DeliveryStatus) is left as a component no one refers to.
  const referred = JSON.stringify(doc.paths) + JSON.stringify(schemas);
  for (const name of Object.keys(schemas)) if (!referred.includes(`"#/components/schemas/${name}"`)) delete schemas[name];
  completeSchemas(schemas, schema);

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
      // Keys come from the service's operator, who is whom to ask; no address is invented for them. The url is
      // the docs page, whose terms of use say so.
      contact: { name: 'The operator of this service (who issues its API keys)', url: `${REST_BASE}/docs` },
    },
    servers: doc.servers,
    security: [{ bearerAuth: [] }],
    tags: [{ name: 'pets', description: 'Animals of the store.' }, { name: 'store', description: 'Orders for the animals.' },
      { name: 'events', description: 'Every change, recorded with it: a feed to follow.' },
      { name: 'webhooks', description: 'Your key\'s events POSTed to your URLs, signed (Standard Webhooks), retried for about three days.' }, { name: 'limits', description: 'Your key\'s quota, free to ask.' }],
    paths: doc.paths,
    components: { ...extra, schemas: { ...schemas, ...extra.schemas } },
  });
}
