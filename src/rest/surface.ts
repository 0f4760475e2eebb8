import type { GraphQLField, GraphQLSchema } from 'graphql';
import type { OpenAPIV3 } from 'openapi-types';
import { parse as parseQuery } from 'qs';
import { createSofa, createSofaRouter } from 'sofa-api';
import type { OperationLimits } from '../config.js';
import { CURSOR_MAX_LENGTH } from '../domain/cursor.js';
import { EVENT_TYPES } from '../domain/events.js';
import { MAX_SAFE_ID } from '../domain/ids.js';
import { appError } from '../errors.js';
import { countNodes } from '../graphql/node-budget.js';
import { FREE_ROOT_FIELDS } from '../graphql/operation-limits.js';
import type { ServerContext } from '../pipeline/context.js';
import { classify, errorBodies } from '../pipeline/error-response.js';
import { HeaderMap } from '../pipeline/header-map.js';
import { Response } from '../pipeline/response.js';
import type { Endpoint, SurfaceRoutes } from '../pipeline/routing.js';
import type { Reply } from '../schema/builder.js';
import { lifecycleHeaders, lifecycleOf } from '../schema/extensions.js';
import type { FieldUse, FieldUses } from '../schema/requirements.js';
import { restExecutor, type Execute } from './execute.js';
import { routeOperation, sofaOperations, type RouteArguments, type RouteOperation } from './route-operation.js';
import { restSchema } from './rest-schema.js';
import { BODY_ARGUMENT, bodyTypesOf, REST_BASE, REST_ROUTES, routedFields, takesIdempotencyKey, type RestRoute } from './routes.js';

declare module '../pipeline/context.js' {
  interface ServerContext {
    /** What a REST answer takes from its execution besides the body: its Link and Location. */
    reply?: Reply;
  }
}

export interface RestSurface {
  /** The /v1 routes, each method's facts resolved from its route and its field, once. */
  readonly routes: SurfaceRoutes;
  /** SOFA's own OpenAPI document, before completion. */
  readonly sofaDocument: OpenAPIV3.Document;
  /** What a route's call selects (its scopes, its deprecated fields); undefined for what is not a route. */
  useOf(endpoint: Endpoint | undefined): FieldUse | undefined;
}

/** What SOFA builds the surface from: the REST schema, the routes, the custom scalars as OpenAPI shows them. */
function sofaConfig(schema: GraphQLSchema) {
  return {
    schema: restSchema(schema),
    basePath: REST_BASE,
    routes: REST_ROUTES,
    // /v1/docs is ours (pages/rest-docs.ts).
    swaggerUI: { endpoint: false },
    customScalars: {
      SafeInt: { type: 'integer', format: 'int64', minimum: 1, maximum: MAX_SAFE_ID },
      DateTime: { type: 'string', format: 'date-time' },
      Cursor: { type: 'string', minLength: 1, maxLength: CURSOR_MAX_LENGTH },
      EventType: { type: 'string', enum: [...EVENT_TYPES] },
    },
  } satisfies Parameters<typeof createSofa>[0];
}

const openApiOf = (sofa: ReturnType<typeof createSofa>) => createSofaRouter(sofa).openAPIDocument as OpenAPIV3.Document;

/** SOFA's own OpenAPI document for the schema, before completion (openapi.ts). */
export function sofaDocumentOf(schema: GraphQLSchema): OpenAPIV3.Document {
  return openApiOf(createSofa(sofaConfig(schema)));
}

/**
 * SOFA generates the REST surface from the schema at startup: the routes, each route's operation and its
 * parameters, the OpenAPI document. Per request, each route runs its operation (routeOperation), not
 * SOFA's handler. `observe` wraps the executor every route runs (tracing, when on).
 */
export async function createRest(
  schema: GraphQLSchema, context: (serverContext: ServerContext) => object, limits: OperationLimits, uses: FieldUses,
  observe: (execute: Execute) => Execute = (execute) => execute,
): Promise<RestSurface> {
  // Before SOFA's schema copies the fields: its resolvers count too.
  countNodes(schema);
  const config = sofaConfig(schema);
  const sofa = createSofa(config);
  const openAPIDocument = openApiOf(sofa);
  const documents = await sofaOperations(config);
  const execute = observe(restExecutor(limits));
  const paths: Record<string, Record<string, Endpoint>> = {};
  const fieldUse = new Map<Endpoint, FieldUse>();
  for (const { key, route, field, typeName } of routedFields(schema)) {
    const run = routeOperation({
      schema: sofa.schema, document: documents.get(key)!, fieldName: field.name, status: route.responseStatus ?? 200, execute, context,
    });
    const endpoint = endpointOf(route, field, run);
    (paths[`${REST_BASE}${route.path}`] ??= {})[route.method] = endpoint;
    fieldUse.set(endpoint, uses.ofRoute(typeName, field));
  }
  return {
    routes: { prefix: REST_BASE, surface: errorBodies, paths },
    sofaDocument: openAPIDocument,
    useOf: (endpoint) => (endpoint ? fieldUse.get(endpoint) : undefined),
  };
}

/**
 * One route as the pipeline runs it: what it takes and costs, then SOFA's handler for its field, and the
 * headers of its answer: 204 without a body, Link to the next page, Location of what it created, and
 * Deprecation (RFC 9745) and Sunset (RFC 8594) when its field is deprecated.
 */
function endpointOf(route: RestRoute, field: GraphQLField<unknown, unknown>, run: RouteOperation): Endpoint {
  const lifecycle = lifecycleOf(field.extensions);
  const deprecation = lifecycle ? lifecycleHeaders(lifecycle) : [];
  return {
    body: bodyTypesOf(route, field),
    free: FREE_ROOT_FIELDS.has(field.name),
    takesIdempotencyKey: takesIdempotencyKey(route),
    async handle(request, serverContext) {
      const { body, pathParams, pathname, search } = serverContext;
      const reply: Reply = serverContext.reply = {};
      let response: Response;
      try {
        response = await run(serverContext, body === undefined ? queryArguments(search, pathParams) : bodyArguments(pathParams, body));
      } catch (error) {
        // Rendered here, where the request (its Accept) is known, so the route's headers still follow.
        response = errorBodies.renderError(classify(error, serverContext.requestId), request, serverContext.requestId);
      }
      if (response.ok) {
        if (route.noContent) response = emptied(response);
        if (reply.next) response.headers.set('Link', nextLink(pathname, search, reply.next));
        if (route.location && reply.value) response.headers.set('Location', locationOf(route.location, reply.value as Record<string, unknown>));
      }
      for (const [name, value] of deprecation) response.headers.set(name, value);
      return response;
    },
  };
}

/** `/pets/:id` filled from the created record: `/v1/pets/42`. */
function locationOf(template: string, record: Record<string, unknown>): string {
  return REST_BASE + template.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(record[name])));
}

/**
 * RFC 8288: the next page, as the same request (its limit and filter) with the next page's cursor (or
 * event id). Relative to this server, like Location.
 */
function nextLink(pathname: string, search: string, next: Readonly<Record<string, string>>): string {
  const query = new URLSearchParams(search);
  for (const [name, value] of Object.entries(next)) query.set(name, value);
  return `<${pathname}?${query}>; rel="next"`;
}

/** 204 No Content: the same headers, without those of the body it no longer has. */
function emptied(response: Response): Response {
  const headers = new HeaderMap(response.headers);
  headers.delete('content-type');
  headers.delete('content-length');
  return new Response(null, { status: 204, headers });
}

/**
 * A GET's arguments: the query string parsed once, with the same qs SOFA uses, its empty values left out
 * (SOFA's `searchParams[name] || ...` skips them); the path's segments win, as in SOFA.
 */
function queryArguments(search: string, pathParams: Readonly<Record<string, string>>): RouteArguments {
  if (search.length <= 1) return pathParams;
  const args: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(parseQuery(search.slice(1)))) if (value) args[name] = value;
  return Object.assign(args, pathParams);
}

/**
 * The spec's body is the NewPet (or the change) itself: it is the `input` argument, so GraphQL's input
 * coercion checks it (missing, unknown and mistyped fields) exactly as it does for /graphql. A body
 * route's fields come only from its body and its path, never from the query string.
 */
function bodyArguments(pathParams: Readonly<Record<string, string>>, body: unknown): RouteArguments {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw appError('BAD_REQUEST', 'The request body must be a JSON object');
  }
  return { ...pathParams, [BODY_ARGUMENT]: body };
}
