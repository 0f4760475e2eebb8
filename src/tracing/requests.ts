import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type TextMapGetter, type Tracer } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE, ATTR_URL_PATH, HTTP_REQUEST_METHOD_VALUE_OTHER,
} from '@opentelemetry/semantic-conventions';
import type { ServerContext } from '../pipeline/context.js';
import type { Handler } from '../pipeline/pipeline.js';

/** The calling key's number, never the key: which client a trace is about (its row in api_keys). */
export const ATTR_KEY_ID = 'animal_store.key_id';
/** How the response cache answered a cacheable read (`hit`, `miss`, `bypass`): a hit's trace has no execution in it. */
export const ATTR_CACHE = 'animal_store.cache';

/** Methods outside HTTP's own are one value, as the conventions ask: a client cannot mint span names. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

const fetchHeaders: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};

/** What only the pipeline knows once it has run: the route (resolved first), the caller, the status. */
function describe(span: Span, method: string, { route, pathname, caller, cached }: ServerContext, status: number): void {
  const matched = route && route.label !== 'unmatched';
  if (matched) {
    span.updateName(`${method} ${route.label}`);
    span.setAttribute(ATTR_HTTP_ROUTE, route.label);
  }
  span.setAttribute(ATTR_URL_PATH, pathname);
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  if (caller?.kind === 'key') span.setAttribute(ATTR_KEY_ID, caller.key.id);
  if (cached) span.setAttribute(ATTR_CACHE, cached.outcome);
  if (status >= 500) {
    span.setAttribute(ATTR_ERROR_TYPE, String(status));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
}

/**
 * One SERVER span per request, around the whole pipeline, continuing the client's W3C `traceparent`.
 * The pipeline runs in its context, so the steps' spans, the GraphQL spans and every SQL statement and
 * Redis call they make are its children. It is named like the metrics label requests, by route
 * (`GET /v1/pets/:petId`), never by a raw path. `rootShare`: the share of requests without a parent that
 * are traced (parentbased_traceidratio), drawn before any span is made.
 */
export function tracedRequests(tracer: Tracer, handler: Handler, rootShare?: number): Handler {
  return (request, serverContext) => {
    // A request that starts a trace is traced in `rootShare` of cases, drawn here: the others run as with
    // traces off (no span, and so no trace id in their log line). The SDK's ratio sampler would make
    // a span, a context and ids for each of them first. With a parent, the parent decides, as before.
    if (rootShare !== undefined && Math.random() >= rootShare && !request.headers.has('traceparent')) return handler(request, serverContext);
    const parent = propagation.extract(ROOT_CONTEXT, request.headers, fetchHeaders);
    const method = METHODS.has(request.method) ? request.method : HTTP_REQUEST_METHOD_VALUE_OTHER;
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: method } }, parent);
    return context.with(trace.setSpan(parent, span), async () => {
      try {
        const response = await handler(request, serverContext);
        describe(span, method, serverContext, response.status);
        return response;
      } catch (error) {
        // The pipeline answers every error itself; whatever still escapes it is the server's fault.
        describe(span, method, serverContext, 500);
        throw error;
      } finally {
        span.end();
      }
    });
  };
}

/** The trace of the request being answered, for its log line: found in the context the pipeline runs in. */
export function activeTraceId(): string | undefined {
  return trace.getActiveSpan()?.spanContext().traceId;
}
