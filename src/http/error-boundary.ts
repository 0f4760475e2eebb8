import type { ServerAdapterPlugin } from '@whatwg-node/server';
import { renderError, toAppError } from '../errors.js';
import type { ServerContext } from './server-context.js';
import { requestIdOf } from './use-request-log.js';

type Handler = (request: Request, serverContext: ServerContext) => Response | Promise<Response>;

/** The client's view of any failure: ours keep their code; anything else is INTERNAL, its cause logged with the request id. */
const answer = (error: unknown, request: Request, serverContext: ServerContext) =>
  renderError(toAppError(error, requestIdOf(request)), serverContext.route?.surface ?? 'rest');

/** What the failed response already carried (request id, limits, CORS) is kept; its body and type are not. */
const BODY_HEADERS = new Set(['content-type', 'content-length', 'content-encoding']);

/**
 * One error boundary around the whole pipeline: every plugin's hooks and the handler. Whatever throws,
 * in any step, on either surface, the client gets the Error body (or the GraphQL error shape) with the
 * request id, and nothing internal leaves the process. Without it, a throw in a hook would reach the
 * server adapter's default handler, which answers with the stack trace as text.
 */
export function withErrorBoundary(plugins: ServerAdapterPlugin<ServerContext>[], handler: Handler) {
  const guarded = plugins.map((plugin): ServerAdapterPlugin<ServerContext> => {
    const { onRequest, onResponse } = plugin;
    return {
      ...plugin,
      ...(onRequest && {
        async onRequest(payload) {
          try {
            await onRequest(payload);
          } catch (error) {
            payload.endResponse(answer(error, payload.request, payload.serverContext));
          }
        },
      }),
      ...(onResponse && {
        async onResponse(payload) {
          try {
            await onResponse(payload);
          } catch (error) {
            const replacement = answer(error, payload.request, payload.serverContext);
            for (const [name, value] of payload.response.headers) {
              if (!BODY_HEADERS.has(name) && !replacement.headers.has(name)) replacement.headers.set(name, value);
            }
            payload.setResponse(replacement);
          }
        },
      }),
    };
  });
  const guardedHandler: Handler = async (request, serverContext) => {
    try {
      return await handler(request, serverContext);
    } catch (error) {
      return answer(error, request, serverContext);
    }
  };
  return { plugins: guarded, handler: guardedHandler };
}
