import { adminListener } from './assembly/admin.js';
import { startLiveEvents } from './assembly/live-events.js';
import { requestSteps } from './assembly/request-steps.js';
import { createCache, responseCacheStep } from './assembly/response-cache.js';
import { resolverContext } from './assembly/resolver-context.js';
import { sharedState } from './assembly/shared-state.js';
import { openStores } from './assembly/stores.js';
import { createSurfaces } from './assembly/surfaces.js';
import { startWebhooks } from './assembly/webhooks.js';
import { tokenCallers } from './auth/tokens/token-callers.js';
import { createAuthenticator, recheckEvery } from './auth/authenticate.js';
import { systemClock, type Clock } from './clock.js';
import { closerStack, type Closers } from './closers.js';
import type { Config } from './config.js';
import { describeDatabase } from './db/data-source.js';
import { loadSecret } from './db/secrets.js';
import { createCursors } from './domain/cursor.js';
import { log } from './log.js';
import { deprecatedCallLog } from './ops/deprecated-calls.js';
import { createMetrics } from './ops/metrics.js';
import { BODY_LIMIT_BYTES } from './pipeline/body.js';
import { nodeListener, type Listener } from './pipeline/node-listener.js';
import { createPipeline, type Step } from './pipeline/pipeline.js';
import type { Router } from './pipeline/routing.js';
import { GRAPHQL_PATH } from './graphql/surface.js';
import { schema } from './schema/index.js';
import type { Tracing } from './tracing/start.js';
import { createWebSocketTransport } from './websocket/transport.js';
import { takesUpgrade, upgradeListener } from './websocket/upgrades.js';

export interface App {
  /** A node:http request listener, and `fetch(request)` for the Fetch API. */
  readonly handle: Listener;
  /** The admin API's request listener (keys over HTTP), for a port of its own: only with ADMIN_PORT set. */
  readonly admin: Listener | undefined;
  /** A node:http `upgrade` listener: GraphQL over WebSocket on /graphql, any other upgrade answered as a plain request. */
  readonly upgrade: ReturnType<typeof upgradeListener>;
  /** node:http's `shouldUpgradeCallback`: the upgrades `upgrade` takes; the rest are plain requests. */
  readonly takesUpgrade: ReturnType<typeof takesUpgrade>;
  /** What the startup log tells the operator. */
  readonly backends: { readonly database: string; readonly rateLimits: string; readonly events: string };
  /** Every path the service answers and its methods (HEAD wherever GET is), as the router built them. */
  readonly routes: Router['paths'];
  /**
   * The start of the drain window: `/readyz` fails (503, `draining`) so that load balancers take the
   * instance out, and every answer closes its connection so that clients reconnect elsewhere; requests
   * are still served.
   */
  leave(): void;
  /** From now on, refuse new requests (503, Retry-After) while those in flight finish. */
  drain(): void;
  /**
   * Does now, once, what the timers do: reads the outbox, fans its events out to webhook endpoints and
   * sends every delivery due, then resolves when those sends have ended. A test awaits it, then asserts
   * what arrived (and what did not), instead of waiting a guessed while.
   */
  settle(): Promise<void>;
  /** Reads the trusted documents' manifest again (SIGHUP): false when there is none, or it is bad and the last stays. */
  reloadDocuments(): boolean;
  close(): Promise<void>;
}

export interface AppOptions {
  /** Where windows, bans and the key cache read the time; tests move theirs by hand. */
  readonly clock?: Clock;
  /** Steps added just before the surfaces, inside the error boundary: tests make one fail on purpose. */
  readonly steps?: Step[];
  /**
   * Traces, started before the app's modules were loaded (main.ts) when the OTEL_* variables ask for
   * them; close() shuts them down. Without it, nothing of tracing is assembled: no span, no wrapper, no
   * check per request.
   */
  readonly tracing?: Tracing;
}

/** Opens the stores, migrates, and builds everything a request needs, once. Listening is the caller's. */
export async function createApp(config: Config, { clock = systemClock, steps = [], tracing }: AppOptions = {}): Promise<App> {
  log.level = config.logLevel;
  const closers = closerStack();
  // The traces started before the app (main.ts) end after everything else: the last requests' spans go out.
  if (tracing) closers.push('traces', () => tracing.shutdown());
  try {
    return await assemble(config, { clock, steps, tracing }, closers);
  } catch (error) {
    await closers.closeAll();
    throw error;
  }
}

/** createApp's work, in its parts (src/assembly/), each pushing what it opens onto `closers` as it opens it. */
async function assemble(
  config: Config, { clock, steps, tracing }: { clock: Clock; steps: Step[]; tracing?: Tracing }, closers: Closers,
): Promise<App> {
  const stores = await openStores(config, clock, closers);
  // Told to stop (SIGTERM): readiness fails and every answer closes its connection, while requests are
  // still served; `draining` follows once the listener closes, and refuses what still arrives.
  let leaving = false;
  const metrics = createMetrics({ dataSource: stores.dataSource, redis: stores.redis, replicas: stores.replicas, leaving: () => leaving });
  const cache = createCache(config, metrics);
  const shared = sharedState(config, stores, clock, metrics, cache !== undefined);
  const live = await startLiveEvents(config, stores, metrics, clock, closers, cache);
  const webhooks = startWebhooks(config, stores, live, metrics, clock, closers);
  const cursors = createCursors(await loadSecret(stores.dataSource, 'cursor'));
  const surfaces = await createSurfaces(config, resolverContext(stores, live, webhooks, cursors, clock), metrics, stores, shared, tracing, () => leaving);
  const deprecatedCalls = deprecatedCallLog(stores.keys, clock);
  closers.push('the deprecated-call log', () => deprecatedCalls.close());
  let draining = false;
  const tokens = config.tokens && tokenCallers(config.tokens, stores.tokenSubjects);
  if (tokens) {
    // Not waited for: keys work at once, and a token waits for its issuer's keys only if they are not here yet.
    tokens.start();
    closers.push('the access-token keys', async () => tokens.stop());
  }
  const authenticate = createAuthenticator(stores.keys, config.keyCacheTtlSeconds, clock, tokens);
  const pipeline = createPipeline(requestSteps({
    config, stores, shared, surfaces, webhooks, metrics, deprecatedCalls, tracing, extra: steps, authenticate,
    draining: () => draining,
    responseCache: responseCacheStep(cache, { config, live, shared, stores, surfaces, metrics }),
  }));
  const run = tracing ? tracing.requests(pipeline) : pipeline;
  const handle = nodeListener(run, () => leaving);
  // Each operation on a socket runs through `run`, as the POST it stands for.
  const sockets = createWebSocketTransport({
    run, authenticate, clock, schema, recheckMs: recheckEvery(config.keyCacheTtlSeconds), maxPayloadBytes: BODY_LIMIT_BYTES, trustProxyHops: config.trustProxyHops,
  });
  closers.push('the WebSocket connections', () => sockets.close());

  return {
    handle,
    admin: adminListener(config, stores, metrics, clock, { leaving: () => leaving, draining: () => draining }),
    upgrade: upgradeListener(handle, sockets, GRAPHQL_PATH),
    takesUpgrade: takesUpgrade(sockets, GRAPHQL_PATH),
    routes: surfaces.router.paths,
    backends: {
      database: describeDatabase(config.database),
      rateLimits: stores.redis ? `${stores.redis.describe()} (shared by every instance)` : 'in process (set REDIS_URL to share limits between instances)',
      events: live.events.describe,
    },
    async settle() {
      await live.outbox.poll();
      await webhooks.dispatcher.settle();
    },
    // Both surfaces hold the manifest; each keeps its last good one when the file is bad.
    reloadDocuments: () => [surfaces.graphql, surfaces.subgraph].map((surface) => surface.reloadDocuments()).every(Boolean),
    leave() {
      leaving = true;
    },
    drain() {
      leaving = true;
      draining = true;
      // Sockets first: they close with Going Away, so their clients reconnect elsewhere and subscribe again.
      sockets.drain();
      // Open subscriptions end cleanly (a `complete` event), so their connections can close.
      void live.events.close();
    },
    // Everything startup opened, in the reverse order: the traces last, so the final requests' spans go out.
    close: () => closers.closeAll(),
  };
}
