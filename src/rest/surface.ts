import type { GraphQLField, GraphQLSchema } from 'graphql';
import type { OpenAPIV3 } from 'openapi-types';
import { parse as parseQuery } from 'qs';
import { useSofa } from 'sofa-api';
import type { OperationLimits } from '../config.js';
import { CURSOR_MAX_LENGTH } from '../domain/cursor.js';
import { EVENT_TYPES } from '../domain/events.js';
import { MAX_SAFE_ID } from '../domain/ids.js';
import { appError } from '../errors.js';
import { countNodes } from '../graphql/node-budget.js';
import { FREE_ROOT_FIELDS } from '../graphql/operation-limits.js';
import type { ServerContext } from '../pipeline/context.js';
import { classify, errorBodies } from '../pipeline/error-response.js';
import { Response } from '../pipeline/response.js';
import type { Endpoint, SurfaceRoutes } from '../pipeline/routing.js';
import type { Reply } from '../schema/builder.js';
import { lifecycleHeaders, lifecycleOf } from '../schema/extensions.js';
import type { FieldUse, FieldUses } from '../schema/requirements.js';
import { throwRestErrors } from './errors.js';
import { restExecutor, type Execute } from './execute.js';
import { restSchema } from './rest-schema.js';
import { BODY_ARGUMENT, bodyTypesOf, REST_BASE, REST_ROUTES, routedFields, routeKey, takesIdempotencyKey, type RestRoute } from './routes.js';

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

/** `observe` wraps the executor every route runs (tracing, when on); by default it is left as it is. */
export function createRest(
  schema: GraphQLSchema, context: (serverContext: ServerContext) => object, limits: OperationLimits, uses: FieldUses,
  observe: (execute: Execute) => Execute = (execute) => execute,
): RestSurface {
  // Before SOFA's schema copies the fields: its resolvers count too.
  countNodes(schema);
  const sofa = useSofa({
    schema: restSchema(schema),
    basePath: REST_BASE,
    routes: REST_ROUTES,
    context: (serverContext) => context(serverContext as unknown as ServerContext),
    execute: observe(restExecutor(limits)) as never,
    // SOFA types its Response as fets' own; ours is the platform's, which fets sends just the same.
    errorHandler: throwRestErrors as never,
    swaggerUI: { endpoint: false },
    customScalars: {
      SafeInt: { type: 'integer', format: 'int64', minimum: 1, maximum: MAX_SAFE_ID },
      DateTime: { type: 'string', format: 'date-time' },
      Cursor: { type: 'string', minLength: 1, maxLength: CURSOR_MAX_LENGTH },
      EventType: { type: 'string', enum: [...EVENT_TYPES] },
    },
  });
  const handlers = routeHandlers(sofa);
  const paths: Record<string, Record<string, Endpoint>> = {};
  const fieldUse = new Map<Endpoint, FieldUse>();
  for (const { key, route, field, typeName } of routedFields(schema)) {
    const endpoint = endpointOf(route, field, handlers.get(key)!);
    (paths[`${REST_BASE}${route.path}`] ??= {})[route.method] = endpoint;
    fieldUse.set(endpoint, uses.ofRoute(typeName, field));
  }
  return {
    routes: { prefix: REST_BASE, surface: errorBodies, paths },
    sofaDocument: sofa.openAPIDocument as OpenAPIV3.Document,
    useOf: (endpoint) => (endpoint ? fieldUse.get(endpoint) : undefined),
  };
}

/**
 * One route as the pipeline runs it: what it takes and costs, then SOFA's handler for its field, and the
 * headers of its answer: 204 without a body, Link to the next page, Location of what it created, and
 * Deprecation (RFC 9745) and Sunset (RFC 8594) when its field is deprecated.
 */
function endpointOf(route: RestRoute, field: GraphQLField<unknown, unknown>, handler: SofaHandler): Endpoint {
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
        response = await handler(body === undefined ? sofaRequest(request.url, search, pathParams) : bodyAsArgument(request, pathParams, body), serverContext);
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
  const headers = new Headers(response.headers);
  headers.delete('content-type');
  headers.delete('content-length');
  return new Response(null, { status: 204, headers });
}

/** What SOFA's route handler reads of a request (sofa-api router.js, useHandler): its url, params and body. */
interface SofaRequest {
  readonly url: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly body: null;
}
type SofaHandler = (request: SofaRequest, serverContext: ServerContext) => Promise<Response>;

/**
 * The handler SOFA generated for each route (parameters → variables → execute → response), by route key.
 * The path was already resolved, once, by our router: calling the handler directly skips the feTS router
 * SOFA wraps them in, a second server adapter that would match the path again (by URLPattern).
 */
function routeHandlers(sofa: ReturnType<typeof useSofa>): Map<string, SofaHandler> {
  const generated = (sofa as unknown as { __routes: { method: string; path: string; handler: SofaHandler }[] }).__routes;
  const handlers = new Map<string, SofaHandler>();
  for (const route of Object.values(REST_ROUTES)) {
    const found = generated.find((r) => r.method === route.method && r.path === route.path);
    if (!found) throw new Error(`SOFA generated no handler for ${routeKey(route)}`);
    handlers.set(routeKey(route), found.handler);
  }
  return handlers;
}

/**
 * A GET. SOFA takes each variable from params, else from the url's query string, which it parses (qs) once
 * per variable, present or not: the query is parsed here once, with the same qs, into params, and the url
 * goes without it. Its empty values are left out, as SOFA's `searchParams[name] || body[name]` leaves
 * them; the path's segments win, as in SOFA.
 */
function sofaRequest(url: string, search: string, pathParams: Readonly<Record<string, string>>): SofaRequest {
  if (search.length <= 1) return { url, params: pathParams, body: null };
  const params: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(parseQuery(search.slice(1)))) if (value) params[name] = value;
  return { url: withoutQuery(url), params: Object.assign(params, pathParams), body: null };
}

const withoutQuery = (url: string) => {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
};

/**
 * SOFA matches body keys to argument names; the spec's body is the NewPet (or the change) itself. Passing it as the
 * `input` argument lets GraphQL's input coercion check it (missing, unknown and mistyped fields) exactly
 * as it does for /graphql. The query string is dropped: a POST's fields come only from its body, and
 * SOFA would let `?input=` override it.
 */
function bodyAsArgument(request: Request, params: Readonly<Record<string, string>>, body: unknown): SofaRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw appError('BAD_REQUEST', 'The request body must be a JSON object');
  }
  return { url: withoutQuery(request.url), params: { ...params, [BODY_ARGUMENT]: body }, body: null };
}
