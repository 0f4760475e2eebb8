import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ServerContext } from '../pipeline/context.js';

/** What yoga answered an operation that came over a WebSocket: one result, or a subscription's stream of them. */
export type SocketResult = ExecutionResult | AsyncIterable<ExecutionResult>;

declare module '../pipeline/context.js' {
  interface ServerContext {
    /**
     * Set on an operation that came over a WebSocket: yoga's result is handed to the socket as it is
     * (the socket writes its own messages), instead of being rendered as an HTTP body.
     */
    socketResult?: { value?: SocketResult };
  }
}

/**
 * The last result processor: for a socket's operation it keeps the result (its errors already coded by
 * useErrorResults) and answers the pipeline an empty response in the status HTTP would have had, so the
 * access log and the metrics count the operation as they count a request.
 */
export function useSocketResults(): Plugin<object, ServerContext> {
  return {
    onResultProcess({ serverContext, setResultProcessor }) {
      const slot = serverContext.socketResult;
      if (!slot) return;
      setResultProcessor((result, { Response }) => {
        slot.value = result as SocketResult;
        const http = !Array.isArray(result) && !(Symbol.asyncIterator in result)
          ? (result.extensions?.http as { status?: number } | undefined)
          : undefined;
        return new Response(null, { status: http?.status ?? 200 });
      }, 'application/json');
    },
  };
}
