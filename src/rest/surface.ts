import { MapperKind, mapSchema, pruneSchema } from '@graphql-tools/utils';
import {
  GraphQLList, GraphQLNonNull, GraphQLScalarType, isListType, isNonNullType, isScalarType,
  type GraphQLSchema, type GraphQLType,
} from 'graphql';
import { useSofa } from 'sofa-api';
import type { OpenAPIV3 } from 'openapi-types';
import type { OperationLimits } from '../config.js';
import { appError } from '../errors.js';
import { MAX_SAFE_ID } from '../domain/ids.js';
import type { FieldLifecycle } from '../schema/pet.js';
import { renderRestErrors } from './errors.js';
import { restExecutor } from './execute.js';
import { BODY_ARGUMENT, REST_BASE, REST_ROUTES, routedFields, routeKey, type RestRoute } from './routes.js';
import { Response } from '../pipeline/response.js';
import type { ServerContext } from '../pipeline/context.js';

export interface RestSurface {
  handle(request: Request, serverContext: ServerContext): Promise<Response>;
  /** SOFA's own OpenAPI document, before completion. */
  readonly sofaDocument: OpenAPIV3.Document;
}

const NUMERIC_SCALARS = new Set(['Int', 'Float', 'SafeInt']);
/** Scalars whose parameters are decoded here: the numeric ones, and Cursor (when repeated). */
const DECODED_SCALARS = new Set([...NUMERIC_SCALARS, 'Cursor']);
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
 * field marked GRAPHQL_ONLY, and no type left unreachable by their removal.
 */
function restFields(schema: GraphQLSchema): GraphQLSchema {
  return pruneSchema(mapSchema(schema, {
    [MapperKind.SUBSCRIPTION]: () => null,
    [MapperKind.COMPOSITE_FIELD]: (config) => (config.extensions?.graphqlOnly ? null : config),
  }));
}

/** Deprecation (RFC 9745) and Sunset (RFC 8594) headers for each route whose field is deprecated. */
function lifecycleHeaders(schema: GraphQLSchema): Map<string, [string, string][]> {
  const headers = new Map<string, [string, string][]>();
  for (const { key, field } of routedFields(schema)) {
    const lifecycle = field.extensions.lifecycle as FieldLifecycle | undefined;
    if (!lifecycle) continue;
    headers.set(key, [
      ['Deprecation', `@${Date.parse(lifecycle.deprecatedAt) / 1000}`],
      ['Sunset', new Date(lifecycle.sunsetAt).toUTCString()],
    ]);
  }
  return headers;
}

export function createRest(
  schema: GraphQLSchema, context: (serverContext: object) => object, operationLimits: OperationLimits,
): RestSurface {
  // The request a resolver context belongs to: its response headers, for the executor to add to, and its
  // id. The executor is handed only the resolver context, so it finds the request through this map.
  const requests = new WeakMap<object, Pick<ServerContext, 'responseHeaders' | 'requestId'>>();
  const sofa = useSofa({
    schema: decodeNumerals(restFields(schema)),
    basePath: REST_BASE,
    routes: REST_ROUTES,
    context: (serverContext) => {
      const value = context(serverContext);
      const { responseHeaders, requestId } = serverContext as Pick<ServerContext, 'responseHeaders' | 'requestId'>;
      requests.set(value, { responseHeaders, requestId });
      return value;
    },
    execute: restExecutor(operationLimits, {
      created(value, location) {
        const headers = requests.get(value as object)?.responseHeaders;
        if (headers) headers.Location = location;
      },
      requestId: (value) => requests.get(value as object)?.requestId,
    }) as never,
    // SOFA types its Response as fets' own; ours is the platform's, which fets sends just the same.
    errorHandler: renderRestErrors as never,
    swaggerUI: { endpoint: false },
    customScalars: {
      SafeInt: { type: 'integer', format: 'int64', minimum: 1, maximum: MAX_SAFE_ID },
      DateTime: { type: 'string', format: 'date-time' },
      Cursor: { type: 'string', minLength: 1, maxLength: 256 },
    },
  });
  const headersByRoute = lifecycleHeaders(schema);
  const handlers = routeHandlers(sofa);
  const noContent = new Set(Object.values(REST_ROUTES).filter((r: RestRoute) => r.noContent).map(routeKey));

  return {
    sofaDocument: sofa.openAPIDocument as OpenAPIV3.Document,
    async handle(request, serverContext) {
      const { body, restRoute, pathParams } = serverContext;
      serverContext.responseHeaders = {};
      const handler = restRoute ? handlers.get(restRoute) : undefined;
      let response: Response;
      try {
        response = handler
          ? await handler(body === undefined ? sofaRequest(request.url, pathParams) : bodyAsArgument(request, pathParams, body), serverContext)
          : renderRestErrors([appError('NOT_FOUND', 'No such route')]);
      } catch (error) {
        response = renderRestErrors([error], serverContext.requestId);
      }
      if (response.ok && restRoute && noContent.has(restRoute)) response = emptied(response);
      if (response.ok && serverContext.nextCursor) response.headers.set('Link', nextLink(request.url, serverContext.nextCursor));
      for (const [name, value] of (restRoute && headersByRoute.get(restRoute)) || []) response.headers.set(name, value);
      for (const [name, value] of Object.entries(serverContext.responseHeaders ?? {})) response.headers.set(name, value);
      return response;
    },
  };
}

/**
 * RFC 8288: the next page, as the same request (its limit and filter) with the next cursor. Relative to
 * this server, like Location.
 */
function nextLink(requestUrl: string, cursor: string): string {
  const url = new URL(requestUrl);
  url.searchParams.set('cursor', cursor);
  return `<${url.pathname}${url.search}>; rel="next"`;
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

/** A GET: SOFA reads the query string from the url, the path's segments from params. */
const sofaRequest = (url: string, params: Readonly<Record<string, string>>): SofaRequest => ({ url, params, body: null });

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
  const query = request.url.indexOf('?');
  return { url: query < 0 ? request.url : request.url.slice(0, query), params: { ...params, [BODY_ARGUMENT]: body }, body: null };
}
