import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { GraphQLSchema } from 'graphql';
import { CloseCode, makeServer, type ExecutionResult } from 'graphql-ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Authenticate } from '../auth/authenticate.js';
import { log } from '../log.js';
import { MAX_NESTING, textNestsDeeper } from '../pipeline/nesting.js';
import type { Handler } from '../pipeline/pipeline.js';
import { authorizationOf } from './connection-params.js';
import { runOperation, type Outcome, type Peer } from './operation.js';
import { createSocketGuard, GOING_AWAY, type SocketGuard } from './socket-guard.js';

export interface WebSocketOptions {
  /** The request pipeline, as every HTTP request runs it. */
  readonly run: Handler;
  readonly authenticate: Authenticate;
  readonly schema: GraphQLSchema;
  /** How often an open socket's key is looked at again: a revoked key's sockets close within the key cache's TTL. */
  readonly recheckMs: number;
  /** The largest message taken: a request body's limit. */
  readonly maxPayloadBytes: number;
  /** How long a socket may stay silent after the upgrade before it sends connection_init. */
  readonly initTimeoutMs?: number;
  /** Proxies in front that append X-Forwarded-For (TRUST_PROXY): only then is it read. */
  readonly trustProxyHops: number;
}

/** The per-connection state graphql-ws keeps (its `extra`): the socket, its upgrade request, and ours. */
interface Extra {
  readonly socket: WebSocket;
  readonly request: IncomingMessage;
  readonly guard: SocketGuard;
  peer?: Peer;
}

/** The operation's outcome rides from onSubscribe to execute/subscribe in its execution context. */
interface OperationContext {
  readonly outcome: Extract<Outcome, { result: unknown }>;
  /** Gives the operation's slot back: its stream ends. */
  readonly end: () => void;
}

/** Clients should ping this often at most; the server pings a socket silent this long and drops it if no pong comes. */
const KEEP_ALIVE_MS = 12_000;

/**
 * GraphQL over WebSocket (graphql-ws's `graphql-transport-ws` protocol, as Apollo's GraphQLWsLink, urql
 * and graphql-ws's own client speak it) on /graphql. graphql-ws keeps the protocol (its messages, its
 * close codes, connection_init's deadline); every operation goes through the request pipeline as the
 * POST it stands for (operation.ts), so nothing about keys, limits or errors is decided here but:
 * - connection_init must carry a key that is good now (else 4403, with the refusal's words), and the key
 *   is looked at again every `recheckMs` (a revoked key closes the socket, 4403);
 * - a socket that floods messages or holds too many operations at once is closed (1008, socket-guard.ts);
 * - while the instance drains, sockets are closed with 1001 (Going Away) once their queries and
 *   mutations are answered, so clients reconnect to another instance and resume their subscriptions.
 */
export function createWebSocketTransport(options: WebSocketOptions) {
  const { run, authenticate, recheckMs, maxPayloadBytes, initTimeoutMs = 3_000 } = options;
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxPayloadBytes, perMessageDeflate: false });
  const guards = new Set<SocketGuard>();
  let draining = false;

  const protocol = makeServer<Record<string, unknown>, Extra>({
    schema: options.schema,
    connectionInitWaitTimeout: initTimeoutMs,
    async onConnect({ connectionParams, extra }) {
      const authorization = authorizationOf(connectionParams);
      const caller = await Promise.resolve(authenticate(authorization)).catch(() => undefined);
      if (caller?.kind !== 'key') {
        // Refused as the request it would be (a point from the address's budget, a log line), with its words.
        const refusal = await runOperation(run, peerOf(extra.request, authorization ?? '', options.trustProxyHops), { query: '{ __typename }' }, AbortSignal.abort());
        const [first] = 'errors' in refusal ? refusal.errors : [];
        // The key table unreachable: no verdict on the key, so the client may try again (1013, Try Again Later).
        const code = caller === undefined ? 1013 : CloseCode.Forbidden;
        extra.socket.close(code, reasonOf(first?.message ?? 'Forbidden'));
        return false;
      }
      extra.peer = peerOf(extra.request, authorization!, options.trustProxyHops);
      extra.guard.watchKey(async () => {
        const now = await Promise.resolve(authenticate(authorization)).catch(() => undefined);
        // An unreachable key table is no revocation: the socket stays.
        if (now?.kind === 'anonymous') extra.socket.close(CloseCode.Forbidden, reasonOf(now.problem));
      }, recheckMs);
      return true;
    },
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
    const extra: Extra = { socket, request, guard };
    const closed = protocol.opened({
      protocol: socket.protocol,
      send: (data) => new Promise<void>((resolve) => {
        if (socket.readyState !== socket.OPEN) return resolve();
        socket.send(data, () => resolve());
      }),
      close: (code, reason) => socket.close(code, reason),
      onMessage: (deliver) => socket.on('message', (data, isBinary) => {
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
      }),
    }, extra);
    // A peer that answers no ping within a period is gone (a half-open TCP connection holds its slots otherwise).
    let answered = true;
    const keepAlive = setInterval(() => {
      if (!answered) socket.terminate();
      else if (socket.readyState === socket.OPEN) { answered = false; socket.ping(); }
    }, KEEP_ALIVE_MS);
    socket.on('pong', () => { answered = true; });
    socket.on('error', (error) => log.debug({ err: error }, 'WebSocket error'));
    socket.once('close', (code, reason) => {
      clearInterval(keepAlive);
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

/**
 * A subscription's results, which give its slot back as soon as the socket is done with them: a client's
 * `complete` calls return() while a next() still waits for an event, and (unlike an async generator's)
 * this return() does not queue behind it.
 */
function endingWith(results: AsyncIterable<ExecutionResult>, end: () => void): AsyncGenerator<ExecutionResult> {
  const iterator = results[Symbol.asyncIterator]();
  const finish = <T>(value: T): T => { end(); return value; };
  const ending: AsyncGenerator<ExecutionResult> = {
    next: () => iterator.next().then((read) => (read.done ? finish(read) : read), (error: unknown) => finish(Promise.reject(error))),
    return: (value) => finish(iterator.return ? iterator.return(value) : Promise.resolve({ done: true as const, value })),
    throw: (error) => finish(iterator.throw ? iterator.throw(error) : Promise.reject(error)),
    [Symbol.asyncIterator]: () => ending,
  };
  return ending;
}

/** What the pipeline reads of a request's origin, from the upgrade request. */
function peerOf(request: IncomingMessage, authorization: string, trustProxyHops: number): Peer {
  const forwarded = request.headers['x-forwarded-for'];
  return {
    authorization,
    remoteAddress: request.socket.remoteAddress,
    forwardedFor: trustProxyHops > 0 ? (Array.isArray(forwarded) ? forwarded.join(', ') : forwarded) : undefined,
  };
}

/** A close frame's reason holds at most 123 bytes. */
function reasonOf(message: string): string {
  const bytes = Buffer.from(message);
  return bytes.length <= 123 ? message : `${bytes.subarray(0, 120).toString().replace(/\uFFFD+$/, '')}...`;
}
