import { isAsyncIterable, type FetchAPI, type Plugin } from 'graphql-yoga';
import type { ExecutionResult } from 'graphql';
import type { ServerContext } from '../pipeline/context.js';

/** A comment line: some proxies close a connection that stays silent, and a first byte flushes the headers. */
const PING_MS = 12_000;
const encoder = new TextEncoder();

/**
 * Subscriptions over Server-Sent Events as yoga sends them (`event: next` / `event: complete`, the
 * graphql-sse protocol's distinct connections), with each event's `id`: the outbox id of the change it
 * carries. A browser's EventSource keeps the last one and sends it back as Last-Event-ID when it
 * reconnects, and the stream resumes after it. Runs after yoga chose SSE for a stream. (A subscription
 * refused before it streams is no stream of results: see stream-refusal.ts.)
 */
export function useEventIds(): Plugin<object, ServerContext> {
  return {
    onResultProcess({ result, resultProcessor, setResultProcessor, serverContext }) {
      const place = serverContext.streamPlace;
      if (!place || !resultProcessor || !isAsyncIterable(result)) return;
      setResultProcessor((stream, fetchAPI) => eventStream(stream as AsyncIterable<ExecutionResult>, place, fetchAPI), 'text/event-stream');
    },
  };
}

/**
 * The body is the server adapter's stream and the answer its Response (what yoga's own SSE processor
 * uses), not the platform's: the adapter pipes its stream, a Node Readable, into the socket, while a
 * platform ReadableStream is pumped by a recursion whose promises each wait for the next one, so an open
 * stream kept a promise for every event it sent until it ended (the soak's 50 subscribers ran a 128 MB heap
 * out in two minutes).
 */
function eventStream(results: AsyncIterable<ExecutionResult>, place: { lastId?: number }, { ReadableStream, Response }: FetchAPI): Response {
  const iterator = results[Symbol.asyncIterator]();
  let ping: NodeJS.Timeout | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(':\n\n'));
      ping = setInterval(() => {
        if (controller.desiredSize === null) clearInterval(ping);
        else if (controller.desiredSize > 0) controller.enqueue(encoder.encode(':\n\n'));
      }, PING_MS);
    },
    async pull(controller) {
      try {
        const read = await iterator.next();
        if (!read.done) {
          // The resolver set the id of the event this result carries (none for an error that ends the stream).
          const id = place.lastId;
          place.lastId = undefined;
          // What yoga's own processor writes: the result without the status and headers meant for HTTP.
          const { http: _http, ...extensions } = read.value.extensions ?? {};
          const json = JSON.stringify({ ...read.value, extensions: Object.keys(extensions).length > 0 ? extensions : undefined });
          // After `event:`, which a hand-written parser may expect first (SSE itself takes fields in any order).
          controller.enqueue(encoder.encode(`event: next\n${id === undefined ? '' : `id: ${id}\n`}data: ${json}\n\n`));
          return;
        }
        clearInterval(ping);
        controller.enqueue(encoder.encode('event: complete\ndata:\n\n'));
        controller.close();
      } catch (error) {
        clearInterval(ping);
        controller.error(error);
      }
    },
    async cancel() {
      clearInterval(ping);
      await iterator.return?.();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { 'Content-Type': 'text/event-stream', Connection: 'keep-alive', 'Cache-Control': 'no-cache', 'Content-Encoding': 'none' },
  });
}
