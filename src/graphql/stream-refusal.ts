import type { AppError } from '../errors.js';
import { Response } from '../pipeline/response.js';

const graphqlError = ({ message, extensions: { code, status } }: AppError) => ({ message, extensions: { code, status } });

/**
 * A refusal answered to a client that takes only an event stream (`Accept: text/event-stream`: a
 * browser's EventSource, graphql-sse's client), in the one shape both can show: neither reads the body of
 * an answer that is not a 200 stream (EventSource reports the status at most, a browser's not even that;
 * graphql-sse's client retries it five times as a network error, then reports "Server responded with
 * 400"). So, as the GraphQL-over-SSE protocol asks of errors before execution: 200, `text/event-stream`,
 * one `next` event holding the errors (`{"errors":[{"message","extensions":{"code","status"}}]}`, as
 * every GraphQL refusal), then `complete`; with the refusal's headers (rate limits, Retry-After,
 * WWW-Authenticate). A Retry-After is also the stream's `retry:`, how long an EventSource that is not
 * closed on `complete` waits before it asks again.
 */
export function eventStreamRefusal(errors: readonly AppError[], headers: Record<string, string> = {}): Response {
  const retryAfter = Number(headers['Retry-After'] ?? headers['retry-after']);
  const retry = Number.isInteger(retryAfter) && retryAfter > 0 ? `retry: ${retryAfter * 1000}\n\n` : '';
  const next = JSON.stringify({ errors: errors.map(graphqlError) });
  return new Response(`${retry}event: next\ndata: ${next}\n\nevent: complete\ndata:\n\n`, {
    status: 200,
    headers: { ...headers, 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' },
  });
}
