import { renderError, toAppError } from '../errors.js';
import type { ServerContext } from './context.js';

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

/** The client's view of any failure: ours keep their code; anything else is INTERNAL, its cause logged with the request id. */
const answer = (error: unknown, serverContext: ServerContext) =>
  renderError(toAppError(error, serverContext.requestId), serverContext.route?.surface ?? 'rest');

/** What the failed response already carried (request id, limits, CORS) is kept; its body and type are not. */
const BODY_HEADERS = new Set(['content-type', 'content-length', 'content-encoding']);

function replaced(response: Response, error: unknown, serverContext: ServerContext): Response {
  const replacement = answer(error, serverContext);
  for (const [name, value] of response.headers) {
    if (!BODY_HEADERS.has(name) && !replacement.headers.has(name)) replacement.headers.set(name, value);
  }
  return replacement;
}

const parsedUrl = (request: Request): URL => (request as { parsedUrl?: URL }).parsedUrl ?? new URL(request.url);

/**
 * The steps in order, then the handler, then every step's response hook, in one loop that awaits only
 * what is pending (a whatwg-node plugin chain wraps every hook of every request in promises).
 *
 * It is also the one error boundary: whatever throws, in any step, on either surface, the client gets
 * the Error body (or the GraphQL error shape) with the request id, and nothing internal leaves the
 * process. A throw in a response hook replaces the response and the remaining hooks still run.
 */
export function createPipeline(steps: readonly Step[], handler: Handler): Handler {
  const requestHooks = steps.flatMap((step) => (step.onRequest ? [step.onRequest.bind(step)] : []));
  const responseHooks = steps.flatMap((step) => (step.onResponse ? [step.onResponse.bind(step)] : []));

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
        response = answer(error, serverContext);
      }
      if (response) break;
    }
    if (!response) {
      try {
        response = await handler(request, serverContext);
      } catch (error) {
        response = answer(error, serverContext);
      }
    }
    for (const hook of responseHooks) {
      try {
        const pending = hook({ request, response, serverContext });
        if (pending) await pending;
      } catch (error) {
        response = replaced(response, error, serverContext);
      }
    }
    return response;
  };
}
