import { randomBytes } from 'node:crypto';
import { createKey } from '../../src/auth/key-admin.js';
import { loadConfig, type Config, type RateLimitsConfig } from '../../src/config.js';
import { apiKeyStore } from '../../src/db/api-keys.js';
import { createDataSource } from '../../src/db/data-source.js';
import type { AppOptions } from '../../src/app.js';
import { serve, type RunningServer } from '../../src/server.js';
import { backend, freshStore, type Store } from './backend.js';
import { testClock, type TestClock } from './clock.js';
import { call, type Reply } from './http.js';

export interface TestServer {
  readonly url: string;
  /** The admin API's, when the server runs with ADMIN_PORT. */
  readonly adminUrl: string | undefined;
  readonly store: Store;
  /** The settings the server runs with (its Redis and prefix among them). */
  readonly config: Config;
  /** Settings a second instance needs to share this one's database, Redis budget and time. */
  readonly shared: { store: Store; env: Record<string, string>; clock: TestClock };
  /** The server's time: it stands still until the test moves it. */
  readonly clock: TestClock;
  /** Every path the server answers and its methods: its own route table. */
  readonly routes: RunningServer['app']['routes'];
  /** Headers every call of this server's client sends: a key with limits no test reaches. */
  readonly headers: Record<string, string>;
  get<T = any>(path: string, headers?: Record<string, string>): Promise<Reply<T>>;
  post<T = any>(path: string, json: unknown, headers?: Record<string, string>): Promise<Reply<T>>;
  patch<T = any>(path: string, json: unknown, headers?: Record<string, string>): Promise<Reply<T>>;
  del<T = any>(path: string, headers?: Record<string, string>): Promise<Reply<T>>;
  /** POST /graphql. */
  gql<T = any>(query: string, variables?: object, headers?: Record<string, string>): Promise<Reply<T>>;
  /** A new key on this server's store (restricted to `scopes`, and to `documents`, when given); `auth` is its Authorization header. */
  newKey(plan?: string, limits?: { perMinute?: number; perDay?: number }, scopes?: string, documents?: string): Promise<{ key: string; id: number; auth: Record<string, string> }>;
  /** Reads the trusted documents' manifest again, as SIGHUP does in production. */
  reloadDocuments(): boolean;
  /** The start of the drain window, as SIGTERM starts it (App.leave). */
  leave(): void;
  /** Reads the outbox and sends the webhooks due, once, now; resolves when those sends have ended (App.settle). */
  settle(): Promise<void>;
  /** Stops the server; the store stays (a restart test reuses it). */
  stop(): Promise<void>;
  /** Stops the server and deletes its store. */
  close(): Promise<void>;
}

export interface ServerOptions {
  env?: Record<string, string>;
  store?: Store;
  /** Shorter windows and other limits than the environment can set. */
  rateLimits?: Partial<RateLimitsConfig>;
  /** The server's time; a clock of its own, standing still, by default. */
  clock?: TestClock;
  /** Steps added to the pipeline, just before the surfaces. */
  steps?: AppOptions['steps'];
  /** Traces, started by the test before it imported this module (see tracing.test.ts). */
  tracing?: AppOptions['tracing'];
}

/** The same loadConfig → serve as main.ts, on an ephemeral port of 127.0.0.1, with a store of its own. */
export async function startServer(options: ServerOptions = {}): Promise<TestServer> {
  const store = options.store ?? await freshStore();
  const env = {
    PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent',
    // Each server counts in a Redis namespace of its own, unless a test shares one on purpose.
    REDIS_PREFIX: `test-${randomBytes(4).toString('hex')}`,
    ...(backend === 'mysql' ? { REDIS_URL: process.env.TEST_REDIS_URL! } : {}),
    ...store.env, ...options.env,
  };
  const loaded = loadConfig(env);
  const config: Config = { ...loaded, rateLimits: { ...loaded.rateLimits, ...options.rateLimits } };
  const clock = options.clock ?? testClock();
  const running: RunningServer = await serve(config, { clock, steps: options.steps, tracing: options.tracing });

  const admin = await createDataSource(config.database).initialize();
  const newKey: TestServer['newKey'] = async (plan = 'free', limits = {}, scopes = undefined, documents = undefined) => {
    const { key, record } = await createKey(apiKeyStore(admin), {
      plan, ...limits, ...(scopes !== undefined ? { scopes } : {}), ...(documents !== undefined ? { documents } : {}),
    });
    return { key, id: record.id, auth: { authorization: `Bearer ${key}` } };
  };
  const headers = (await newKey('enterprise', { perMinute: 1_000_000, perDay: 1_000_000 })).auth;

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await running.close(1_000);
    await admin.destroy();
  };
  return {
    url: running.url,
    adminUrl: running.adminUrl,
    store,
    config,
    shared: { store, env: { REDIS_PREFIX: env.REDIS_PREFIX, ...(options.env ?? {}) }, clock },
    clock,
    routes: running.app.routes,
    headers,
    get: (path, extra = {}) => call(`${running.url}${path}`, { headers: { ...headers, ...extra } }),
    post: (path, json, extra = {}) => call(`${running.url}${path}`, { method: 'POST', json, headers: { ...headers, ...extra } }),
    patch: (path, json, extra = {}) => call(`${running.url}${path}`, { method: 'PATCH', json, headers: { ...headers, ...extra } }),
    del: (path, extra = {}) => call(`${running.url}${path}`, { method: 'DELETE', headers: { ...headers, ...extra } }),
    gql: (query, variables, extra = {}) =>
      call(`${running.url}/graphql`, { method: 'POST', json: { query, variables }, headers: { ...headers, ...extra } }),
    newKey,
    settle: () => running.app.settle(),
    leave: () => running.app.leave(),
    reloadDocuments: () => running.app.reloadDocuments(),
    stop,
    async close() {
      await stop();
      await store.drop();
    },
  };
}

/** Two instances on one store and clock, with the same settings (`env`): what a load balancer spreads traffic over. */
export async function startPair(env: Record<string, string>) {
  const a = await startServer({ env });
  const b = await startServer({ store: a.shared.store, clock: a.shared.clock, env: { ...a.shared.env, ...env } });
  return { a, b, async stop() { await b.stop(); await a.close(); } };
}
