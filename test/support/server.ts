import { loadConfig } from '../../src/config.js';
import { serve, type RunningServer } from '../../src/server.js';
import { freshStore, type Store } from './backend.js';
import { call, type Reply } from './http.js';

export interface TestServer {
  readonly url: string;
  readonly store: Store;
  /** Headers every call of this server's client sends. */
  readonly headers: Record<string, string>;
  get<T = any>(path: string, headers?: Record<string, string>): Promise<Reply<T>>;
  post<T = any>(path: string, json: unknown, headers?: Record<string, string>): Promise<Reply<T>>;
  /** POST /graphql. */
  gql<T = any>(query: string, variables?: object, headers?: Record<string, string>): Promise<Reply<T>>;
  /** Stops the server; the store stays (a restart test reuses it). */
  stop(): Promise<void>;
  /** Stops the server and deletes its store. */
  close(): Promise<void>;
}

/** The same loadConfig → serve as main.ts, on an ephemeral port of 127.0.0.1, with a store of its own. */
export async function startServer(options: { env?: Record<string, string>; store?: Store } = {}): Promise<TestServer> {
  const store = options.store ?? await freshStore();
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...store.env, ...options.env });
  const running: RunningServer = await serve(config);
  const headers: Record<string, string> = {};
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await running.close(1_000);
  };
  return {
    url: running.url,
    store,
    headers,
    get: (path, extra = {}) => call(`${running.url}${path}`, { headers: { ...headers, ...extra } }),
    post: (path, json, extra = {}) => call(`${running.url}${path}`, { method: 'POST', json, headers: { ...headers, ...extra } }),
    gql: (query, variables, extra = {}) =>
      call(`${running.url}/graphql`, { method: 'POST', json: { query, variables }, headers: { ...headers, ...extra } }),
    stop,
    async close() {
      await stop();
      await store.drop();
    },
  };
}
