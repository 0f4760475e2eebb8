import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { GraphQLSchema } from 'graphql';
import { makeServer, type ExecutionResult } from 'graphql-ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { log } from '../log.js';
import { connectionInit, type Connection, type ConnectionInitOptions } from './connection-init.js';
import { keepAlive } from './keep-alive.js';
import { onMessages } from './messages.js';
import { runOperation, type Outcome } from './operation.js';
import { createSocketGuard, GOING_AWAY, type SocketGuard } from './socket-guard.js';
import { endingWith } from './subscription-results.js';

export interface WebSocketOptions extends ConnectionInitOptions {
  readonly schema: GraphQLSchema;
  /** The largest message taken: a request body's limit. */
  readonly maxPayloadBytes: number;
  /** How long a socket may stay silent after the upgrade before it sends connection_init. */
  readonly initTimeoutMs?: number;
}

/** The operation's outcome rides from onSubscribe to execute/subscribe in its execution context. */
interface OperationContext {
  readonly outcome: Extract<Outcome, { result: unknown }>;
  /** Gives the operation's slot back: its stream ends. */
  readonly end: () => void;
}

/**
 * GraphQL over WebSocket (graphql-ws's `graphql-transport-ws` protocol, as Apollo's GraphQLWsLink, urql
 * and graphql-ws's own client speak it) on /graphql. graphql-ws keeps the protocol (its messages, its
 * close codes, connection_init's deadline); every operation goes through the request pipeline as the
 * POST it stands for (operation.ts), so nothing about keys, limits or errors is decided here but:
 * - connection_init must carry a key that is good now, and the key is looked at again while the socket
 *   is open (connection-init.ts);
 * - a socket that floods messages or holds too many operations at once is closed (1008, socket-guard.ts);
 * - while the instance drains, sockets are closed with 1001 (Going Away) once their queries and
 *   mutations are answered, so clients reconnect to another instance and resume their subscriptions.
 */
export function createWebSocketTransport(options: WebSocketOptions) {
  const { run, maxPayloadBytes, initTimeoutMs = 3_000 } = options;
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxPayloadBytes, perMessageDeflate: false });
  const guards = new Set<SocketGuard>();
  let draining = false;
  const accept = connectionInit(options);

  const protocol = makeServer<Record<string, unknown>, Connection>({
    schema: options.schema,
    connectionInitWaitTimeout: initTimeoutMs,
    onConnect: ({ connectionParams, extra }) => accept(connectionParams, extra),
    async onSubscribe({ extra }, id, payload) {
      const operation = extra.guard.open(id);
      const outcome = await runOperation(run, extra.peer!, payload, operation.signal);
      if ('errors' in outcome) {
        operation.end();
        return [...outcome.errors];
      }
      if (Symbol.asyncIterator in outcome.result) operation.streams();
      const contextValue: OperationContext = { outcome, end: operation.end };
      return { schema: options.schema, document: outcome.document, operationName: outcome.operationName, contextValue };
    },
    execute: (args) => (args.contextValue as OperationContext).outcome.result as ExecutionResult,
    subscribe: (args) => {
      const { outcome, end } = args.contextValue as OperationContext;
      return endingWith(outcome.result as AsyncIterable<ExecutionResult>, end);
    },
    onComplete({ extra }, id) {
      extra.guard.close(id);
    },
    onError({ extra }, id) {
      extra.guard.close(id);
    },
  });

  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    // What the socket has open, how fast it sends, and when it may close for the drain.
    const guard = createSocketGuard(socket, () => draining);
    guards.add(guard);
    const extra: Connection = { socket, request, guard };
    const closed = protocol.opened({
      protocol: socket.protocol,
      send: (data) => new Promise<void>((resolve) => {
        if (socket.readyState !== socket.OPEN) return resolve();
        socket.send(data, () => resolve());
      }),
      close: (code, reason) => socket.close(code, reason),
      onMessage: (deliver) => onMessages(socket, guard, deliver),
    }, extra);
    const stopPings = keepAlive(socket);
    socket.on('error', (error) => log.debug({ err: error }, 'WebSocket error'));
    socket.once('close', (code, reason) => {
      stopPings();
      guards.delete(guard);
      guard.dispose();
      void closed(code, String(reason));
    });
  });

  return {
    /** node:http's `upgrade` for /graphql (the caller routes it here). */
    upgrade(request: IncomingMessage, socket: Duplex, head: Buffer) {
      wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
    },
    get draining() {
      return draining;
    },
    /** Closes every socket with Going Away as soon as its queries and mutations are answered. */
    drain() {
      draining = true;
      for (const guard of guards) guard.drain();
    },
    /** Whatever is still open is closed now. */
    close(): Promise<void> {
      for (const client of wss.clients) client.close(GOING_AWAY, 'The service is shutting down');
      const sockets = [...wss.clients];
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => { for (const client of sockets) client.terminate(); }, 1_000);
        wss.close(() => { clearTimeout(timer); resolve(); });
      });
    },
  };
}

export type WebSocketTransport = ReturnType<typeof createWebSocketTransport>;
