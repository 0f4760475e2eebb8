import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type App } from './app.js';
import type { Config } from './config.js';

export interface RunningServer {
  readonly url: string;
  readonly app: App;
  /** Stops accepting, lets in-flight requests finish (for up to `graceMs`), then closes the stores. */
  close(graceMs?: number): Promise<void>;
}

/** createApp + listen: what main.ts runs, and what the tests start on port 0. */
export async function serve(config: Config): Promise<RunningServer> {
  const app = await createApp(config);
  const server: Server = createServer(app.handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = !config.host || config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    app,
    async close(graceMs = 10_000) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A keep-alive connection goes idle once its last response is out: close it then, not at its timeout.
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearInterval(sweep);
      clearTimeout(timer);
      await app.close();
    },
  };
}
