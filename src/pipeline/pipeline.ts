import { appError } from '../errors.js';
import type { ServerContext } from './context.js';
import { classify, errorBodies } from './error-response.js';
import { isPlainResponse, Response as AdapterResponse } from './response.js';

export interface RequestStepPayload {
  readonly request: Request;
  /** The request's URL, parsed once for every step. */
  readonly url: URL;
  readonly serverContext: ServerContext;
  /** Answers the request: later request steps and the handler are skipped, every response step still runs. */
  endResponse(response: Response): void;
}

export interface ResponseStepPayload {
  readonly request: Request;
  readonly response: Response;
  readonly serverContext: ServerContext;
  /** Answers with another response instead (a 304 for a full answer): the hooks after this one see it. */
  replaceResponse(response: Response): void;
}

/**
 * One step of the request pipeline (the shape of a whatwg-node server plugin, run by our own loop). A
 * step that has nothing to wait for returns nothing, and costs no promise.
 */
export interface Step {
  onRequest?(payload: RequestStepPayload): void | Promise<void>;
  onResponse?(payload: ResponseStepPayload): void | Promise<void>;
}

export type Handler = (request: Request, serverContext: ServerContext) => Response | Promise<Response>;

/** The route's endpoint for the method: set by the request checks for every request that gets this far. */
const dispatch: Handler = (request, serverContext) => {
  if (!serverContext.endpoint) throw appError('NOT_FOUND', `No route ${serverContext.pathname}`);
  return serverContext.endpoint.handle(request, serverContext);
};

/**
 * The client's view of any failure, in its surface's shape: ours keep their code and headers; anything
 * else is INTERNAL, its cause logged with the request id. The boundary's rendering: a route's handler,
 * yoga's result plugin and the raw socket's refusals render theirs where what they need is known (CONTRIBUTING.md, Layout;
 * the pipeline).
 */
const answer = (error: unknown, request: Request, serverContext: ServerContext) =>
  (serverContext.route?.surface ?? errorBodies).renderError(classify(error, serverContext.requestId), request, serverContext.requestId);

/** What the failed response already carried (request id, limits, CORS) is kept; its body and type are not. */
const BODY_HEADERS = new Set(['content-type', 'content-length', 'content-encoding']);

function replaced(response: Response, error: unknown, request: Request, serverContext: ServerContext): Response {
  const replacement = answer(error, request, serverContext);
  for (const [name, value] of response.headers) {
    if (!BODY_HEADERS.has(name) && !replacement.headers.has(name)) replacement.headers.set(name, value);
  }
  return replacement;
}

/**
 * A HEAD is answered as its GET was, status and headers (Content-Length included) without the body
 * (RFC 9110, 9.3.2). node:http would drop the bytes anyway, but would still read a stream to its end:
 * the body is cancelled here, so nothing behind it keeps running.
 */
function withoutBody(response: Response): Response {
  if (isPlainResponse(response)) return response.withoutBody() as unknown as Response;
  if (response.body === null) return response;
  void response.body.cancel().catch(() => {});
  return new AdapterResponse(null, { status: response.status, statusText: response.statusText, headers: response.headers });
}

const parsedUrl = (request: Request): URL => (request as { parsedUrl?: URL }).parsedUrl ?? new URL(request.url);

/**
 * The steps' request hooks in order, then the endpoint, then the response hooks in reverse order (the
 * first step sees the response last, as it finally leaves: the request log and the metrics record the
 * status the client gets), in one loop that awaits only what is pending (a whatwg-node plugin chain wraps
 * every hook of every request in promises).
 *
 * It is also the one error boundary: whatever throws, in any step, on either surface, the client gets
 * the Error body (or the GraphQL error shape) with the request id, and nothing internal leaves the
 * process. A step refuses a request by throwing an AppError, headers and all. A throw in a response hook
 * replaces the response and the remaining hooks still run.
 */
export function createPipeline(steps: readonly Step[]): Handler {
  const requestHooks = steps.flatMap((step) => (step.onRequest ? [step.onRequest.bind(step)] : []));
  const responseHooks = steps.flatMap((step) => (step.onResponse ? [step.onResponse.bind(step)] : [])).reverse();

  return async function run(request, serverContext) {
    let response: Response | undefined;
    const payload: RequestStepPayload = {
      request, url: parsedUrl(request), serverContext, endResponse(answered) { response = answered; },
    };
    for (const hook of requestHooks) {
      try {
        const pending = hook(payload);
        if (pending) await pending;
      } catch (error) {
        response = answer(error, request, serverContext);
      }
      if (response) break;
    }
    if (!response) {
      try {
        response = await dispatch(request, serverContext);
      } catch (error) {
        response = answer(error, request, serverContext);
      }
    }
    // One payload for every response hook, its response the latest: each hook is done before the next runs.
    const answered: { request: Request; response: Response; serverContext: ServerContext; replaceResponse(next: Response): void } = {
      request, response, serverContext, replaceResponse(next) { answered.response = next; },
    };
    for (const hook of responseHooks) {
      try {
        const pending = hook(answered);
        if (pending) await pending;
      } catch (error) {
        answered.response = replaced(answered.response, error, request, serverContext);
      }
    }
    response = answered.response;
    return request.method === 'HEAD' ? withoutBody(response) : response;
  };
}
