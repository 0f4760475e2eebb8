import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** What the receiver answers a request with: a status, a redirect, or nothing at all (it hangs). */
export type Answer = number | { redirect: string } | 'hang';

/**
 * A webhook receiver on a loopback port of its own: it records every request and answers each as the
 * test says (201 unless told otherwise, in order: the first answer for the first request, ...).
 */
export async function webhookReceiver() {
  const received: Received[] = [];
  const answers: Answer[] = [];
  const hanging: ServerResponse[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => { body += chunk; });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      for (const wake of waiters.splice(0)) wake();
      const answer = answers.shift() ?? 201;
      if (answer === 'hang') {
        hanging.push(response);
        return;
      }
      if (typeof answer === 'object') response.writeHead(302, { location: answer.redirect }).end();
      else response.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'x'.repeat(100_000));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    /** The answers to the next requests, in order. */
    answer: (...next: Answer[]) => { answers.push(...next); },
    /** Resolves once `count` requests have come, or rejects after `ms`. */
    async waitFor(count: number, ms = 3_000): Promise<Received[]> {
      const deadline = Date.now() + ms;
      while (received.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`the receiver got ${received.length} requests, not ${count}, within ${ms} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => { clearTimeout(timer); resolve(); });
        });
      }
      return received.slice(0, count);
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A webhook target that accepts connections and never answers (nor reads): each request holds its
 * connection until the sender's timeout, as a stalled or hostile receiver would. `drop()` cuts the
 * connections held so far (their requests fail at once).
 */
export async function silentReceiver() {
  const held = new Set<Socket>();
  let accepted = 0;
  const server = createNetServer((socket) => {
    accepted += 1;
    held.add(socket);
    // Read (and dropped), so that a sender giving up is seen at once; never answered.
    socket.resume().on('error', () => undefined).once('close', () => held.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    /** Connections accepted so far. */
    get accepted() { return accepted; },
    /** Connections held now. */
    get holding() { return held.size; },
    drop() { for (const socket of held) socket.destroy(); },
    async close() {
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
