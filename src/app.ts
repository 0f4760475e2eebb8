import { createServerAdapter } from '@whatwg-node/server';
import { createAuthenticator } from './auth/authenticate.js';
import { hasKey, useIdentify, useRequireKey } from './auth/use-auth.js';
import { useScopes } from './auth/use-scopes.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { apiKeyStore } from './db/api-keys.js';
import { createDataSource, describeDatabase } from './db/data-source.js';
import { migrate } from './db/migrate.js';
import { orderStore } from './db/orders.js';
import { petStore } from './db/pets.js';
import { fenced, pruneFences } from './db/fence.js';
import { outboxReads, pruneEvents } from './db/outbox.js';
import { prepared } from './db/prepared.js';
import { createReplicas } from './db/replicas.js';
import { webhookDeliveries } from './db/webhook-deliveries.js';
import { webhookEndpoints } from './db/webhook-endpoints.js';
import { loadSecret } from './db/secrets.js';
import { openApiJson } from './documents.js';
import { createCursors } from './domain/cursor.js';
import { closerStack, type Closers } from './closers.js';
import { byRecord } from './domain/events.js';
import { createChangeEvents } from './events/change-events.js';
import { createEventHistory, eventFeed } from './events/event-history.js';
import { createOutboxReader } from './events/outbox-reader.js';
import { resumableEvents } from './events/resumable.js';
import { createGraphQL, GRAPHQL_PATH } from './graphql/surface.js';
import { databaseRecords, redisRecords } from './idempotency/records.js';
import { secretsShownIn, useIdempotency } from './idempotency/use-idempotency.js';
import { createLimits } from './limits/limiters.js';
import { quotaOf, useRateLimit } from './limits/use-rate-limit.js';
import { lastWrites } from './reads/last-writes.js';
import { useReadYourWrites } from './reads/use-read-your-writes.js';
import { log } from './log.js';
import { createHealth } from './ops/health.js';
import { createMetrics, eventMetrics } from './ops/metrics.js';
import { deprecatedCallLog } from './ops/deprecated-calls.js';
import { metricsEndpoint, useGraphQLMetrics, useMetrics } from './ops/use-metrics.js';
import { useDeprecations } from './ops/use-deprecations.js';
import { useRequestLog } from './ops/use-request-log.js';
import { graphiqlPage } from './pages/graphiql.js';
import { restDocs } from './pages/rest-docs.js';
import { staticAsset } from './pages/static-asset.js';
import type { ServerContext } from './pipeline/context.js';
import { createPipeline, type Step } from './pipeline/pipeline.js';
import { createRouter, type PublicEndpoint, type Router } from './pipeline/routing.js';
import { useCors } from './pipeline/use-cors.js';
import { useDraining } from './pipeline/use-draining.js';
import { takesBrowserPage, usePublicEndpoints } from './pipeline/use-public-endpoints.js';
import { useRejection, useRequestChecks } from './pipeline/use-request-checks.js';
import { useRouting } from './pipeline/use-routing.js';
import { useSecurityHeaders } from './pipeline/use-security-headers.js';
import { connectRedis } from './redis/connection.js';
import { deadline, fallbackReport } from './redis/deadline.js';
import { REST_BASE } from './rest/routes.js';
import { createRest } from './rest/surface.js';
import type { Context } from './schema/builder.js';
import { schema } from './schema/index.js';
import { Loaders } from './schema/loaders.js';
import { fieldUses } from './schema/requirements.js';
import { createStreamSlots } from './streams/stream-slots.js';
import type { Tracing } from './tracing/start.js';
import { webhookAdmin } from './webhooks/admin.js';
import { createDispatcher } from './webhooks/dispatcher.js';
import { useStreams } from './streams/use-streams.js';

export interface App {
  /** A node:http request listener, and `fetch(request)` for the Fetch API. */
  readonly handle: ReturnType<typeof createServerAdapter<ServerContext>>;
  /** What the startup log tells the operator. */
  readonly backends: { readonly database: string; readonly rateLimits: string; readonly events: string };
  /** Every path the service answers and its methods (HEAD wherever GET is), as the router built them. */
  readonly routes: Router['paths'];
  /** From now on, refuse new requests (503, Retry-After) while those in flight finish. */
  drain(): void;
  /**
   * Does now, once, what the timers do: reads the outbox, fans its events out to webhook endpoints and
   * sends every delivery due, then resolves when those sends have ended. A test awaits it, then asserts
   * what arrived (and what did not), instead of waiting a guessed while.
   */
  settle(): Promise<void>;
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

/** How often each instance reads the outbox without a wake-up: the longest a lost wake-up delays an event. */
const OUTBOX_POLL_MS = 1_000;

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

/** createApp's work, each thing it opens pushed onto `closers` as it opens it. */
async function assemble(
  config: Config, { clock, steps, tracing }: { clock: Clock; steps: Step[]; tracing?: Tracing }, closers: Closers,
): Promise<App> {
  const migrator = await createDataSource(config.database, { forMigrations: true }).initialize();
  try {
    const ran = await migrate(migrator);
    if (ran.length > 0) log.info({ migrations: ran }, 'database migrated');
  } finally {
    await migrator.destroy();
  }
  const dataSource = await createDataSource(config.database).initialize();
  closers.push('the database', () => dataSource.destroy());
  const redis = config.redis ? connectRedis(config.redis) : undefined;
  if (redis) closers.push('Redis', () => redis.close());
  // Requests before the connection is up would be counted in memory only: give Redis a moment.
  await redis?.ready(2_000);

  const replicaConfig = config.database.kind === 'mysql' ? config.database.replicas : undefined;
  const replicas = replicaConfig && createReplicas(replicaConfig, config.database.statementTimeoutSeconds);
  if (replicas) closers.push('the read replicas', () => replicas.close());
  // Reads go to a replica only once its state is known: the first check is waited for.
  await replicas?.refresh();

  const keys = apiKeyStore(dataSource);
  const authenticate = createAuthenticator(keys, config.keyCacheTtlSeconds, clock);
  const metrics = createMetrics(dataSource, replicas);
  const report = fallbackReport((path, reason) => metrics.redisFallbacks.inc({ path, reason }));
  // Every Redis call on a request's path waits at most this long (a Cluster in failover holds them longer).
  const bound = config.redis && deadline(config.redis.callDeadlineMs);
  const limits = createLimits(config.rateLimits, redis?.client, config.redisPrefix, clock, config.redis && { deadlineMs: config.redis.callDeadlineMs, report });
  const writes = replicaConfig && lastWrites({
    redis: redis?.client, prefix: config.redisPrefix, seconds: replicaConfig.readYourWritesSeconds, clock, bound: bound || ((call) => call), report,
  });
  const statements = prepared(dataSource);
  const petsOn = petStore(dataSource, clock);
  const ordersOn = orderStore(dataSource, clock);
  const pets = petsOn();
  const orders = ordersOn();
  const events = createChangeEvents(redis && { connection: redis, prefix: config.redisPrefix }, config.streamQueueEvents);
  closers.push('the event streams', () => events.close());
  // Live events come from the outbox (on the primary): read when woken (a change here, or a wake-up from
  // another instance through Redis), and every second whatever happens.
  const outboxQueries = outboxReads(dataSource);
  const outbox = createOutboxReader({
    source: outboxQueries,
    deliver: (event) => byRecord(event, { pet: events.pet, order: events.order }),
    // A missing id is given up on once its transaction must have ended: every change records its event
    // last, so the gap between an event's insert and its commit is the commit, bounded by the statement timeout.
    horizonMs: (config.database.statementTimeoutSeconds + 1) * 2_000,
    clock: systemClock,
  });
  // Woken, it reads only for this instance's open streams; the poll below keeps its place either way.
  events.onWake(() => { if (events.listening()) void outbox.poll(); });
  await outbox.poll();
  const polling = setInterval(() => { void outbox.poll(); }, OUTBOX_POLL_MS);
  polling.unref();
  closers.push('the outbox poll', () => clearInterval(polling));
  const history = createEventHistory({ pages: outboxQueries.page, reader: outbox, retentionHours: config.eventRetentionHours });
  const feed = eventFeed(history);
  const streams = resumableEvents(events, history);
  // Webhooks: every instance fans new events out to endpoints and sends due deliveries, on a change here
  // (when any endpoint is enabled) and every second.
  const webhookQueue = webhookDeliveries(dataSource, clock);
  const webhookRecords = webhookEndpoints(dataSource, clock);
  const keyOpen = async (keyId: number) => {
    const key = await keys.findById(keyId);
    return key !== null && key.revokedAt === null && (key.expiresAt === null || key.expiresAt.getTime() > clock.now());
  };
  const delivered = eventMetrics(metrics, {
    lag: async () => (await outboxQueries.last()) - (outbox.position ?? 0),
    unsettled: () => outbox.missing,
    retryQueue: () => webhookQueue.pending(),
  });
  const dispatcher = createDispatcher({
    store: webhookQueue, settled: () => history.settled(), keyOpen, clock,
    timeoutMs: config.webhooks.timeoutMs, allowPrivate: config.webhooks.allowPrivate,
    concurrency: config.webhooks.concurrency, perEndpoint: config.webhooks.perEndpoint, counted: (outcome) => delivered.inc({ outcome }),
  });
  closers.push('the webhook dispatcher', () => dispatcher.close());
  events.onWake(() => { if (dispatcher.wanted()) void dispatcher.run(); });
  const webhooks = webhookAdmin(webhookRecords, config.webhooks, clock, () => dispatcher.endpointsChanged());
  const cursors = createCursors(await loadSecret(dataSource, 'cursor'));
  // One resolver context per request, on both surfaces; what it reads of the request is set by then.
  // With read replicas, a key's request has a session of its own (reads as of its last write), and stores on it.
  const context = (request: ServerContext): Context => {
    // A request holding an Idempotency-Key fences each of its writes, so a retry never writes twice.
    const held = request.idempotency;
    const sql = held ? fenced(request.session ?? statements, held.id, () => clock.now()) : request.session;
    const p = sql ? petsOn(sql) : pets;
    const o = sql ? ordersOn(sql) : orders;
    return {
      pets: p, orders: o, events: streams, feed, webhooks, cursors, loaders: new Loaders(p, o), stream: request.streamPlace,
      keyId: request.caller?.kind === 'key' ? request.caller.key.id : undefined,
      scopes: request.caller?.kind === 'key' ? request.caller.key.scopes : undefined,
      requestId: request.requestId, signal: request.streamSignal, reply: request.reply, quota: () => quotaOf(request),
      showsSecret: secretsShownIn(request),
    };
  };
  // What each call selects (its scopes, its deprecated fields): read from the schema once per route and document.
  const uses = fieldUses(schema);
  const rest = await createRest(schema, context, config.operationLimits, uses, tracing?.execute);
  const deprecatedCalls = deprecatedCallLog(keys, clock);
  closers.push('the deprecated-call log', () => deprecatedCalls.close());
  const graphql = createGraphQL(schema, context, config.operationLimits, [useGraphQLMetrics(metrics), ...(tracing ? [tracing.graphql] : [])], tracing?.checks);
  const health = createHealth(dataSource, redis, replicas);
  const openApi = staticAsset(openApiJson(schema, rest.sofaDocument), 'application/json; charset=utf-8');
  const graphiql = await graphiqlPage(GRAPHQL_PATH);
  let draining = false;

  const router = createRouter({
    api: [rest.routes, graphql.routes],
    // Answered before anything is counted: load balancers and scrapers probe often.
    probes: {
      '/healthz': { get: health.healthz },
      '/readyz': { get: health.readyz },
      '/metrics': metricsEndpoint(metrics, config.metricsToken),
    },
    // Anyone may read these, counted against the client's address like any request without a key.
    pages: {
      [`${REST_BASE}/openapi.json`]: { get: openApi },
      [GRAPHQL_PATH]: { get: graphiql, takes: takesBrowserPage } satisfies PublicEndpoint,
      ...restDocs(REST_BASE),
    },
  });

  // With traces on, the steps that wait (on the key table, Redis, the idempotency records) get a span each.
  const traced = tracing ? tracing.step : (step: Step) => step;
  const pipeline = createPipeline([
    // The request pipeline, in order; the response hooks run in the reverse order.
    useRouting(router.resolve),
    useRequestLog({ traceId: tracing?.traceId, sample: config.accessLogSample }),
    useMetrics(metrics),
    useSecurityHeaders(),
    useDraining(() => draining),
    useCors(config.corsOrigins),
    usePublicEndpoints('probe'),
    traced(useIdentify(authenticate, config.trustProxyHops), 'key look-up'),
    // Checked before they are counted, answered after (useRejection): a bad request costs a point too.
    useRequestChecks({ when: hasKey, documentation: `${REST_BASE}/openapi.json` }),
    graphql.operationStep,
    traced(useRateLimit(limits, config.rateLimits, writes?.key), 'limits'),
    usePublicEndpoints('page'),
    useRequireKey(),
    ...(replicas && writes ? [useReadYourWrites(statements, replicas, writes)] : []),
    useRejection(),
    useScopes(({ endpoint, graphql: operation }) =>
      rest.useOf(endpoint) ?? (operation && uses.ofOperation(operation.document, operation.params.operationName))),
    useDeprecations(deprecatedCalls, metrics.deprecatedCalls),
    useStreams({
      slots: createStreamSlots(config.subscriptionsPerKey, redis && { client: redis.client, prefix: config.redisPrefix, bound }),
      perKey: config.subscriptionsPerKey,
      authenticate,
      recheckMs: Math.max(250, (config.keyCacheTtlSeconds * 1000) / 2),
    }),
    traced(useIdempotency(redis
      ? redisRecords(redis.client, config.redisPrefix, bound, { hasReplicas: redis.hasReplicas, report })
      : databaseRecords(dataSource, () => clock.now()),
    // A replay reads a webhook's secret back from its endpoint, the one place it is kept.
    (home) => webhookRecords.secretOf(home.id), config.http.requestTimeoutSeconds * 1000), 'idempotency'),
    ...steps,
  ]);
  const handle = createServerAdapter<ServerContext>(tracing ? tracing.requests(pipeline) : pipeline);

  // The outbox keeps each event for the retention; every instance prunes (a delete finds nothing twice).
  const prune = () => Promise.all([
    pruneEvents(statements, clock.now() - config.eventRetentionHours * 3_600_000),
    pruneFences(statements, clock.now()),
  ]).catch((error: unknown) => log.warn({ err: error }, 'old events or idempotency fences could not be pruned; trying again in a minute'));
  const pruning = setInterval(() => { void prune(); }, 60_000);
  pruning.unref();
  closers.push('the pruning', () => clearInterval(pruning));
  void prune();

  return {
    handle,
    routes: router.paths,
    backends: {
      database: describeDatabase(config.database),
      rateLimits: redis ? `${redis.describe()} (shared by every instance)` : 'in process (set REDIS_URL to share limits between instances)',
      events: events.describe,
    },
    async settle() {
      await outbox.poll();
      await dispatcher.settle();
    },
    drain() {
      draining = true;
      // Open subscriptions end cleanly (a `complete` event), so their connections can close.
      void events.close();
    },
    // Everything startup opened, in the reverse order: the traces last, so the final requests' spans go out.
    close: () => closers.closeAll(),
  };
}
