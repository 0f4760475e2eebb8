import { CloseCode } from 'graphql-ws';
import type { WebSocket } from 'ws';
import { log } from '../log.js';
import { MAX_NESTING, textNestsDeeper } from '../pipeline/nesting.js';
import { reasonOf } from './close-reason.js';
import type { SocketGuard } from './socket-guard.js';

/**
 * Hands each message the socket's guard admits to graphql-ws (`deliver`), and closes the socket for one
 * it should not read or could not handle.
 */
export function onMessages(socket: WebSocket, guard: SocketGuard, deliver: (data: string) => Promise<void>): void {
  socket.on('message', (data, isBinary) => {
    if (!guard.admit()) return;
    const text = isBinary ? '' : String(data);
    // graphql-ws parses without recursing, but stringifies a ping's payload back, and an operation is posted
    // (operation.ts): a message too deep for that is refused as one graphql-ws cannot read is (4400).
    if (textNestsDeeper(text)) return socket.close(CloseCode.BadRequest, `The message nests deeper than ${MAX_NESTING} levels of arrays and objects`);
    deliver(text).catch((error: unknown) => {
      // A message of a type only the server sends (next, error, connection_ack) is valid JSON of the
      // protocol, which graphql-ws then refuses by throwing: the client's mistake, not ours.
      if (error instanceof Error && error.message.startsWith('Unexpected message of type')) {
        socket.close(CloseCode.BadRequest, reasonOf(error.message));
        return;
      }
      log.error({ err: error }, 'a WebSocket message could not be handled');
      socket.close(CloseCode.InternalServerError, 'Internal error');
    });
  });
}
