import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP hop in front of a real server, so a test can cut the line and restore it: a real outage. */
export async function tcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let server = createServer();
  const listen = (port: number) => new Promise<number>((resolve) => {
    server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const s of [client, upstream]) { sockets.add(s); s.on('close', () => sockets.delete(s)); s.on('error', () => s.destroy()); }
      client.pipe(upstream).pipe(client);
    });
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  const port = await listen(0);
  return {
    port,
    /** Refuses new connections and drops the open ones. */
    async cut() {
      await new Promise((resolve) => { server.close(resolve); for (const s of sockets) s.destroy(); });
    },
    async restore() { await listen(port); },
  };
}
