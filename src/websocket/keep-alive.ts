import type { WebSocket } from 'ws';

/** Clients should ping this often at most; the server pings a socket silent this long and drops it if no pong comes. */
export const KEEP_ALIVE_MS = 12_000;

/**
 * A peer that answers no ping within a period is gone (a half-open TCP connection holds its slots
 * otherwise): it is terminated. Returns what stops the pings, for the socket's close.
 */
export function keepAlive(socket: WebSocket): () => void {
  let answered = true;
  const pings = setInterval(() => {
    if (!answered) socket.terminate();
    else if (socket.readyState === socket.OPEN) { answered = false; socket.ping(); }
  }, KEEP_ALIVE_MS);
  socket.on('pong', () => { answered = true; });
  return () => clearInterval(pings);
}
