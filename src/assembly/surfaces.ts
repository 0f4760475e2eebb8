import type { Config } from '../config.js';
import { openApiJson } from '../documents.js';
import { withEntitiesCost } from '../federation/entities-cost.js';
import { SUBGRAPH_PATH, subgraphSchema } from '../federation/subgraph-schema.js';
import { createGraphQL, GRAPHQL_PATH, type GraphQLObservers } from '../graphql/surface.js';
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
import { combinedUse, fieldUses, type FieldUse } from '../schema/requirements.js';
import type { Tracing } from '../tracing/start.js';
import type { SharedState } from './shared-state.js';
import type { Stores } from './stores.js';

/**
 * Both APIs from the one schema (REST through SOFA, GraphQL through Yoga), the federation subgraph
 * beside /graphql (the same schema and federation's fields, for a router), the probes, and the pages
 * anyone may read, behind one router. What each call selects (its scopes, its deprecated fields) is read
 * from its surface's schema once per route and document.
 */
export async function createSurfaces(
  config: Config, context: (request: ServerContext) => Context, metrics: Metrics, { dataSource, redis, replicas }: Stores, shared: SharedState,
  tracing: Tracing | undefined, leaving: () => boolean,
) {
  const uses = fieldUses(schema);
  const executed = operationObserver(metrics);
  const rest = await createRest(schema, context, config.operationLimits, uses, tracing?.execute);
  const documents = {
    manifestFile: config.persistedDocuments.manifestFile,
    registered: shared.documents,
    // A key's own setting (`keys create --documents`) over the service's.
    modeOf: ({ caller }: ServerContext) => (caller?.kind === 'key' && caller.key.documents) || config.persistedDocuments.mode,
  };
  const observers = {
    executed,
    plugins: tracing ? [tracing.graphql] : [],
    direct: tracing && { execute: tracing.execute, remembered: tracing.rememberedValidation },
    observeChecks: tracing?.checks,
  } satisfies GraphQLObservers;
  const graphql = createGraphQL(schema, context, config.operationLimits, documents, observers);
  // A router's keys and documents are its callers' (it forwards Authorization): the same steps, the same rules.
  const subgraph = createGraphQL(subgraphSchema, context, config.operationLimits, documents, {
    ...observers,
    observeChecks: (check) => (tracing?.checks ?? ((same) => same))(withEntitiesCost(check)),
  }, SUBGRAPH_PATH);
  const subgraphUses = fieldUses(subgraphSchema);
  /** What a GraphQL call selects, read from the schema of the surface it came to. */
  const operationUse = ({ endpoint, graphql: call }: ServerContext): FieldUse | undefined => {
    if (!call) return undefined;
    const of = endpoint && subgraph.endpoints.has(endpoint) ? subgraphUses : uses;
    return combinedUse(call.operations.map(({ document, params }) => of.ofOperation(document, params.operationName)));
  };
  const health = createHealth(dataSource, redis, replicas, leaving);
  const router = createRouter({
    api: [rest.routes, graphql.routes, subgraph.routes],
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
  return { rest, graphql, subgraph, uses, operationUse, router, executed };
}

export type Surfaces = Awaited<ReturnType<typeof createSurfaces>>;
