import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';

type ExecutionResult<T = any> = FormattedExecutionResult<T, unknown>;
import WebSocket from 'ws';

/** How the server closed a socket. */
export interface Closed { readonly code: number; readonly reason: string }

/** graphql-ws's own client (the one Apollo's GraphQLWsLink and urql wrap), trying once: a close is reported, not retried. */
export function wsClient(httpUrl: string, connectionParams: Record<string, unknown>, options: { retryAttempts?: number } = {}) {
  let closed: (value: Closed) => void;
  const closes = new Promise<Closed>((resolve) => { closed = resolve; });
  const client: Client = createClient({
    url: `${httpUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: options.retryAttempts ?? 0,
    lazy: false,
    onNonLazyError: () => {},
    on: { closed: (event) => closed({ code: (event as Closed).code, reason: String((event as Closed).reason) }) },
  });
  return {
    client,
    /** The first close of the socket. */
    closes,
    /** A query or mutation: its one result, or what the client threw (an `error` message's errors, or a close). */
    async run<T = any>(query: string, variables?: Record<string, unknown>): Promise<ExecutionResult<T> | { thrown: unknown }> {
      try {
        const results: ExecutionResult<T>[] = [];
        for await (const result of client.iterate<T>({ query, variables })) results.push(result);
        return results[0]!;
      } catch (thrown) {
        return { thrown };
      }
    },
    /** A subscription: its results as they come, and its end (complete, or what it threw). */
    subscribe(query: string, variables?: Record<string, unknown>) {
      const results: ExecutionResult[] = [];
      const waiters: (() => void)[] = [];
      let ended: (value: { complete: true } | { thrown: unknown }) => void;
      const ends = new Promise<{ complete: true } | { thrown: unknown }>((resolve) => { ended = resolve; });
      const stop = client.subscribe({ query, variables }, {
        next: (result) => { results.push(result); for (const wake of waiters.splice(0)) wake(); },
        error: (thrown) => { ended({ thrown }); for (const wake of waiters.splice(0)) wake(); },
        complete: () => { ended({ complete: true }); for (const wake of waiters.splice(0)) wake(); },
      });
      return {
        results,
        ends,
        stop,
        /** Waits until `count` results have arrived (or the subscription ended, or `ms` passed). */
        async until(count: number, ms = 5_000) {
          const deadline = Date.now() + ms;
          while (results.length < count && Date.now() < deadline) {
            const settled = await Promise.race([ends.then(() => true), new Promise<boolean>((resolve) => {
              waiters.push(() => resolve(false));
              setTimeout(() => resolve(false), Math.max(1, deadline - Date.now()));
            })]);
            if (settled) break;
          }
          return results;
        },
      };
    },
    dispose: () => client.dispose(),
  };
}

/** A socket that speaks the protocol by hand: to send what no well-behaved client sends. */
export async function rawSocket(httpUrl: string, protocol = 'graphql-transport-ws') {
  const socket = new WebSocket(`${httpUrl.replace(/^http/, 'ws')}/graphql`, protocol);
  const messages: any[] = [];
  const closes = new Promise<Closed>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
  socket.on('message', (data) => messages.push(JSON.parse(String(data))));
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => { socket.once('open', () => resolve()); socket.once('error', reject); });
  return {
    socket,
    messages,
    closes,
    send: (message: unknown) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)),
    /** Waits for a message that `match` accepts. */
    async receive(match: (message: any) => boolean, ms = 5_000): Promise<any> {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = messages.find(match);
        if (found) return found;
        if (Date.now() > deadline || socket.readyState !== WebSocket.OPEN) throw new Error(`no such message; got ${JSON.stringify(messages)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}
