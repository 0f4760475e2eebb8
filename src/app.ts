import { createServerAdapter } from '@whatwg-node/server';
import { createAuthenticator } from './auth/authenticate.js';
import { useIdentify, useRequireKey } from './auth/use-auth.js';
import type { Config } from './config.js';
import { apiKeyStore } from './db/api-keys.js';
import { createDataSource, describeDatabase } from './db/data-source.js';
import { migrate } from './db/migrate.js';
import { petStore } from './db/pets.js';
import { openApiJson } from './http/documents.js';
import { graphiqlPage, wantsHtml } from './http/graphiql.js';
import { createGraphQL, GRAPHQL_PATH } from './http/graphql.js';
import { createHealth } from './http/health.js';
import { restDocs } from './http/rest-docs.js';
import { REST_BASE } from './http/rest-routes.js';
import { createRest } from './http/rest.js';
import type { ServerContext } from './http/server-context.js';
import { staticAsset } from './http/static-asset.js';
import { useCors } from './http/use-cors.js';
import { usePublicEndpoints, type PublicEndpoint } from './http/use-public-endpoints.js';
import { useRequestLog } from './http/use-request-log.js';
import { useTransportGuards } from './http/use-transport-guards.js';
import { createLimits } from './limits/limiters.js';
import { connectRedis } from './limits/redis.js';
import { useRateLimit } from './limits/use-rate-limit.js';
import { log } from './log.js';
import { createMetrics } from './metrics/metrics.js';
import { metricsEndpoint, useGraphQLMetrics, useMetrics } from './metrics/use-metrics.js';
import type { Context } from './schema/builder.js';
import { schema } from './schema/index.js';

export interface App {
  /** A node:http request listener, and `fetch(request)` for the Fetch API. */
  readonly handle: ReturnType<typeof createServerAdapter<ServerContext>>;
  /** What the startup log tells the operator. */
  readonly backends: { readonly database: string; readonly rateLimits: string };
  close(): Promise<void>;
}

/** Opens the stores, migrates, and builds everything a request needs, once. Listening is the caller's. */
export async function createApp(config: Config): Promise<App> {
  log.level = config.logLevel;
  const dataSource = createDataSource(config.database);
  await dataSource.initialize();
  try {
    const ran = await migrate(dataSource);
    if (ran.length > 0) log.info({ migrations: ran }, 'database migrated');
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : undefined;
  // Requests before the connection is up would be counted in memory only: give Redis a moment.
  await redis?.ready(2_000);

  const authenticate = createAuthenticator(apiKeyStore(dataSource), config.keyCacheTtlSeconds);
  const limits = createLimits(config.limits, redis?.client, config.redisPrefix);
  const metrics = createMetrics(dataSource);
  const pets = petStore(dataSource);
  const context = (): Context => ({ pets });
  const rest = createRest(schema, context);
  const graphql = createGraphQL(schema, context, [useGraphQLMetrics(metrics)]);
  const health = createHealth(dataSource, redis);
  const openApi = staticAsset(openApiJson(schema, rest.sofaDocument), 'application/json; charset=utf-8');
  const graphiql = graphiqlPage();

  // Answered before anything is counted: load balancers and scrapers probe often.
  const probes: Record<string, PublicEndpoint> = {
    '/healthz': { get: health.healthz },
    '/readyz': { get: health.readyz },
    '/metrics': metricsEndpoint(metrics, config.metricsToken),
  };
  // Anyone may read these, counted against the client's address like any request without a key.
  const pages: Record<string, PublicEndpoint> = {
    [`${REST_BASE}/openapi.json`]: { get: openApi },
    [GRAPHQL_PATH]: { shared: true, get: (request) => (wantsHtml(request) ? graphiql(request) : undefined) },
    ...restDocs(),
  };
  const publicPaths = new Set([...Object.keys(probes), ...Object.keys(pages)]);

  const handle = createServerAdapter<ServerContext>(
    (request, serverContext) => (serverContext.surface === 'graphql'
      ? graphql.fetch(request, serverContext)
      : rest.handle(request, serverContext)),
    {
      // The request pipeline, in order.
      plugins: [
        useRequestLog(publicPaths),
        useMetrics(metrics, publicPaths),
        useCors(config.corsOrigins),
        usePublicEndpoints(probes),
        useIdentify(authenticate, config.trustProxyHops),
        useRateLimit(limits, config.limits),
        usePublicEndpoints(pages),
        useRequireKey(),
        useTransportGuards(),
      ],
    },
  );

  return {
    handle,
    backends: {
      database: describeDatabase(config.database),
      rateLimits: redis ? `${redis.describe()} (shared by every instance)` : 'in process (set REDIS_URL to share limits between instances)',
    },
    async close() {
      await redis?.close();
      await dataSource.destroy();
    },
  };
}
