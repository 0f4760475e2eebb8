import type { WebSocket } from 'ws';

/** WebSocket close codes (RFC 6455): the peer should reconnect elsewhere; the peer broke a rule (graphql-ws's client does not retry). */
export const GOING_AWAY = 1001;
export const POLICY_VIOLATION = 1008;

/**
 * Messages one socket may send per second: a page that starts dozens of operations at once stays well
 * below it, a loop that floods does not (each operation still costs its points; this bounds the parsing).
 */
export const MESSAGES_PER_SECOND = 100;
/** Operations one socket may have open at once (its subscriptions are also held to its key's stream slots). */
export const OPERATIONS_PER_SOCKET = 100;

export interface OpenOperation {
  /** Aborts when the socket is done with the operation: its stream ends and its slot is given back. */
  readonly signal: AbortSignal;
  /** The operation is a subscription: the drain does not wait for it to be answered. */
  streams(): void;
  end(): void;
}

export interface SocketGuard {
  /** Counts a message in; false (and the socket closed) for one past the rate. */
  admit(): boolean;
  open(id: string): OpenOperation;
  close(id: string): void;
  /** Runs `check` every `everyMs` while the socket is open (the key's standing). */
  watchKey(check: () => Promise<void>, everyMs: number): void;
  /** Runs `end` once in `inMs`, unless the socket closed first (the key's expiry). */
  endIn(end: () => void, inMs: number): void;
  drain(): void;
  dispose(): void;
}

/** One socket's bookkeeping: its open operations, its message rate, its key's recheck and expiry, and the drain. */
export function createSocketGuard(socket: WebSocket, draining: () => boolean): SocketGuard {
  const operations = new Map<string, { controller: AbortController; answering: boolean }>();
  let window = 0;
  let messages = 0;
  let recheck: NodeJS.Timeout | undefined;
  let ending: NodeJS.Timeout | undefined;
  // connection_init's key check is awaited: a socket may close before its timers are asked for.
  let disposed = false;

  const answering = () => {
    let count = 0;
    for (const operation of operations.values()) if (operation.answering) count += 1;
    return count;
  };
  const closeIfDrained = () => {
    if (draining() && answering() === 0 && socket.readyState === socket.OPEN) {
      socket.close(GOING_AWAY, 'The service is restarting: reconnect');
    }
  };
  const close = (id: string) => {
    const operation = operations.get(id);
    if (!operation) return;
    operations.delete(id);
    operation.controller.abort();
    closeIfDrained();
  };

  return {
    admit() {
      if (socket.readyState !== socket.OPEN) return false;
      const second = Math.floor(performance.now() / 1000);
      if (second !== window) { window = second; messages = 0; }
      messages += 1;
      if (messages <= MESSAGES_PER_SECOND) return true;
      socket.close(POLICY_VIOLATION, `Too many messages: at most ${MESSAGES_PER_SECOND} a second on one socket`);
      return false;
    },
    open(id) {
      const controller = new AbortController();
      const entry = { controller, answering: true };
      operations.set(id, entry);
      if (operations.size > OPERATIONS_PER_SOCKET) {
        socket.close(POLICY_VIOLATION, `Too many operations at once: at most ${OPERATIONS_PER_SOCKET} on one socket`);
      }
      return {
        signal: controller.signal,
        streams() { entry.answering = false; closeIfDrained(); },
        end: () => close(id),
      };
    },
    close,
    watchKey(check, everyMs) {
      if (disposed) return;
      recheck = setInterval(() => void check(), everyMs);
      recheck.unref();
    },
    endIn(end, inMs) {
      if (disposed) return;
      ending = setTimeout(end, inMs);
      ending.unref();
    },
    drain: closeIfDrained,
    dispose() {
      disposed = true;
      clearInterval(recheck);
      clearTimeout(ending);
      for (const id of [...operations.keys()]) close(id);
    },
  };
}
