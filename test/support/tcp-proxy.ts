import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP hop in front of a real server, so a test can make a real network fault and end it: `cut` (the
 * peer is gone: connections drop, new ones are refused) or `blackhole` (the peer hangs: connections stay
 * open and nothing passes, the fault no driver notices by itself).
 */
export async function tcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  // A paused stream that is piped is resumed by the pipe: a held line is unpiped, then joined again.
  const hold = ([a, b]: [Socket, Socket]) => { a.unpipe(b); b.unpipe(a); a.pause(); b.pause(); };
  const join = ([a, b]: [Socket, Socket]) => { a.pipe(b).pipe(a); };
  let mode: 'open' | 'cut' | 'blackhole' = 'open';
  let server = createServer();
  const listen = (port: number) => new Promise<number>((resolve) => {
    server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      const pair: [Socket, Socket] = [client, upstream];
      pairs.add(pair);
      for (const s of pair) {
        sockets.add(s);
        s.on('close', () => { sockets.delete(s); pairs.delete(pair); });
        s.on('error', () => s.destroy());
      }
      if (mode === 'blackhole') hold(pair); else join(pair);
    });
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  const port = await listen(0);
  return {
    port,
    /** Refuses new connections and drops the open ones. */
    async cut() {
      mode = 'cut';
      await new Promise((resolve) => { server.close(resolve); for (const s of sockets) s.destroy(); });
    },
    /** Keeps every connection open and accepts new ones, but passes nothing either way. */
    blackhole() {
      mode = 'blackhole';
      for (const pair of pairs) hold(pair);
    },
    async restore() {
      if (mode === 'cut') await listen(port);
      else for (const pair of pairs) join(pair);
      mode = 'open';
    },
  };
}
