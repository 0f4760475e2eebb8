import type { Config } from '../config.js';
import { openApiJson } from '../documents.js';
import { createGraphQL, GRAPHQL_PATH } from '../graphql/surface.js';
import { createHealth } from '../ops/health.js';
import type { Metrics } from '../ops/metrics.js';
import { metricsEndpoint, operationObserver } from '../ops/use-metrics.js';
import { graphiqlPage } from '../pages/graphiql.js';
import { restDocs } from '../pages/rest-docs.js';
import { staticAsset } from '../pages/static-asset.js';
import type { ServerContext } from '../pipeline/context.js';
import { createRouter, type PublicEndpoint } from '../pipeline/routing.js';
import { takesBrowserPage } from '../pipeline/use-public-endpoints.js';
import { REST_BASE } from '../rest/routes.js';
import { createRest } from '../rest/surface.js';
import type { Context } from '../schema/builder.js';
import { schema } from '../schema/index.js';
import { fieldUses } from '../schema/requirements.js';
import type { Tracing } from '../tracing/start.js';
import type { SharedState } from './shared-state.js';
import type { Stores } from './stores.js';

/**
 * Both APIs from the one schema (REST through SOFA, GraphQL through Yoga), the probes, and the pages
 * anyone may read, behind one router. What each call selects (its scopes, its deprecated fields) is read
 * from the schema once per route and document.
 */
export async function createSurfaces(
  config: Config, context: (request: ServerContext) => Context, metrics: Metrics, { dataSource, redis, replicas }: Stores, shared: SharedState,
  tracing: Tracing | undefined, leaving: () => boolean,
) {
  const uses = fieldUses(schema);
  const executed = operationObserver(metrics);
  const rest = await createRest(schema, context, config.operationLimits, uses, tracing?.execute);
  const graphql = createGraphQL(schema, context, config.operationLimits, {
    manifestFile: config.persistedDocuments.manifestFile,
    registered: shared.documents,
    // A key's own setting (`keys create --documents`) over the service's.
    modeOf: ({ caller }) => (caller?.kind === 'key' && caller.key.documents) || config.persistedDocuments.mode,
  }, {
    executed,
    plugins: tracing ? [tracing.graphql] : [],
    direct: tracing && { execute: tracing.execute, remembered: tracing.rememberedValidation },
    observeChecks: tracing?.checks,
  });
  const health = createHealth(dataSource, redis, replicas, leaving);
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
      [`${REST_BASE}/openapi.json`]: { get: staticAsset(openApiJson(schema, rest.sofaDocument), 'application/json; charset=utf-8') },
      [GRAPHQL_PATH]: { get: graphiqlPage(GRAPHQL_PATH), takes: takesBrowserPage } satisfies PublicEndpoint,
      ...restDocs(REST_BASE),
    },
  });
  return { rest, graphql, uses, router, executed };
}

export type Surfaces = Awaited<ReturnType<typeof createSurfaces>>;
