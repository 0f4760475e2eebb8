import { createServer, type Server, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type App, type AppOptions } from './app.js';
import type { Config } from './config.js';
import { answerClientError, answerConnect } from './pipeline/client-errors.js';

export { requestsSoFar } from './pipeline/node-listener.js';

export interface RunningServer {
  readonly url: string;
  /** The admin API's, when ADMIN_PORT is set. */
  readonly adminUrl: string | undefined;
  readonly app: App;
  /** Starts the drain window: readiness fails, answers close their connections, requests are still served. */
  leave(): void;
  /** Stops accepting, refuses new requests, lets in-flight ones finish (for up to `graceMs`), then closes the stores. */
  close(graceMs?: number): Promise<void>;
}

/** createApp + listen: what main.ts runs, and what the tests start on port 0. */
export async function serve(config: Config, options: AppOptions = {}): Promise<RunningServer> {
  const app = await createApp(config, options);
  const { headersTimeoutSeconds, requestTimeoutSeconds, maxHeaderBytes } = config.http;
  // The same on the admin API's listener.
  const limits: ServerOptions = {
    // A client that trickles its headers or body (slowloris) holds a socket only this long.
    headersTimeout: headersTimeoutSeconds * 1000,
    requestTimeout: requestTimeoutSeconds * 1000,
    maxHeaderSize: maxHeaderBytes,
    // How often those deadlines are checked (Node's default is 30 s, longer than the deadlines).
    connectionsCheckingInterval: 500,
  };
  const server: Server = createServer({
    ...limits,
    // Only a WebSocket on /graphql is upgraded; any other Upgrade header is a plain request (Node 22.21
    // and 24.9 on; Node 20 ignores the option, and app.upgrade answers those requests itself).
    shouldUpgradeCallback: app.takesUpgrade,
  } as ServerOptions, app.handle);
  // Requests that never reach the pipeline (malformed, too slow, headers too large) still get an Error body.
  server.on('clientError', answerClientError);
  server.on('connect', answerConnect);
  server.on('upgrade', app.upgrade);
  await listen(server, config.port, config.host);
  const admin = app.admin && config.admin ? await listen(createServer(limits, app.admin), config.admin.port, config.admin.host).catch(async (error: unknown) => {
    await new Promise((resolve) => server.close(resolve));
    await app.close();
    throw error;
  }) : undefined;
  admin?.on('clientError', answerClientError);

  return {
    url: urlOf(server),
    adminUrl: admin && urlOf(admin),
    app,
    leave: () => app.leave(),
    async close(graceMs = 10_000) {
      app.drain();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      admin?.close();
      admin?.closeAllConnections();
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

function listen(server: Server, port: number, host: string | undefined): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Where a listening server is reached: its address, or loopback for one on every address. */
function urlOf(server: Server): string {
  const { address, port } = server.address() as AddressInfo;
  const host = !address || address === '0.0.0.0' || address === '::' ? '127.0.0.1' : address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
