import { recheckEvery, type createAuthenticator } from '../auth/authenticate.js';
import { isConditionalRead } from '../cache/validators.js';
import { hasKey, useIdentify, useRequireKey } from '../auth/use-auth.js';
import { useScopes } from '../auth/use-scopes.js';
import type { Config } from '../config.js';
import { useRegistration } from '../graphql/use-registration.js';
import { useIdempotency } from '../idempotency/use-idempotency.js';
import { useRateLimit } from '../limits/use-rate-limit.js';
import type { DeprecatedCallLog } from '../ops/deprecated-calls.js';
import type { Metrics } from '../ops/metrics.js';
import { useDeprecations } from '../ops/use-deprecations.js';
import { useMetrics } from '../ops/use-metrics.js';
import { useRequestLog } from '../ops/use-request-log.js';
import type { Step } from '../pipeline/pipeline.js';
import { useCors } from '../pipeline/use-cors.js';
import { useDraining } from '../pipeline/use-draining.js';
import { usePublicEndpoints } from '../pipeline/use-public-endpoints.js';
import { useRejection, useRequestChecks } from '../pipeline/use-request-checks.js';
import { useRouting } from '../pipeline/use-routing.js';
import { useSecurityHeaders } from '../pipeline/use-security-headers.js';
import { useReadYourWrites } from '../reads/use-read-your-writes.js';
import { REST_BASE } from '../rest/routes.js';
import { useStreams } from '../streams/use-streams.js';
import type { Tracing } from '../tracing/start.js';
import { CACHE_FRESH_MS } from './response-cache.js';
import type { SharedState } from './shared-state.js';
import type { Stores } from './stores.js';
import type { Surfaces } from './surfaces.js';
import type { Webhooks } from './webhooks.js';

export interface StepParts {
  readonly config: Config;
  readonly stores: Stores;
  readonly shared: SharedState;
  readonly surfaces: Surfaces;
  readonly webhooks: Webhooks;
  readonly metrics: Metrics;
  readonly authenticate: ReturnType<typeof createAuthenticator>;
  readonly deprecatedCalls: DeprecatedCallLog;
  readonly draining: () => boolean;
  readonly tracing?: Tracing;
  /** Validators, 304s and the response cache (assembly/response-cache.ts). */
  readonly responseCache: Step;
  /** Steps added just before the response cache and the surfaces, inside the error boundary (tests). */
  readonly extra: readonly Step[];
}

/** The request pipeline, in order; the response hooks run in the reverse order. */
export function requestSteps({
  config, stores, shared, surfaces, webhooks, metrics, authenticate, deprecatedCalls, draining, tracing, responseCache, extra,
}: StepParts): Step[] {
  const { rest, graphql, subgraph, operationUse, router } = surfaces;
  // With traces on, the steps that wait (on the key table, Redis, the idempotency records) get a span each.
  const traced = tracing ? tracing.step : (step: Step) => step;
  return [
    useRouting(router.resolve),
    useRequestLog({ traceId: tracing?.traceId, sample: config.accessLogSample }),
    useMetrics(metrics),
    useSecurityHeaders(),
    useDraining(draining),
    useCors(config.corsOrigins),
    usePublicEndpoints('probe'),
    traced(useIdentify(authenticate, config.trustProxyHops), 'key look-up'),
    // Checked before they are counted, answered after (useRejection): a bad request costs a point too.
    useRequestChecks({ when: hasKey, documentation: `${REST_BASE}/openapi.json` }),
    graphql.operationStep,
    subgraph.operationStep,
    // A conditional read's points wait for its answer: a 304 costs none.
    traced(useRateLimit(shared.limits, config.rateLimits, shared.writes?.key, isConditionalRead), 'limits'),
    usePublicEndpoints('page'),
    useRequireKey((reason) => metrics.authFailures.inc({ reason })),
    ...(shared.writes ? [useReadYourWrites(shared.writes, stores.replicas && { sql: stores.statements, replicas: stores.replicas }, CACHE_FRESH_MS + 100)] : []),
    useRejection(),
    useScopes((serverContext) => rest.useOf(serverContext.endpoint) ?? operationUse(serverContext)),
    useDeprecations(deprecatedCalls, metrics.deprecatedCalls),
    // Once the request may run: a document sent with its hash is kept for the hash alone next time.
    // Not a traced step: most requests register nothing, and its Redis calls have spans of their own.
    useRegistration(shared.documents, ({ caller }) => (caller?.kind === 'key' ? caller.key.id : undefined)),
    useStreams({
      slots: shared.streamSlots,
      perKey: config.subscriptionsPerKey,
      authenticate,
      recheckMs: recheckEvery(config.keyCacheTtlSeconds),
    }),
    // A replay reads a webhook's secret back from its endpoint, the one place it is kept.
    traced(useIdempotency(shared.idempotency, (home) => webhooks.endpoints.secretOf(home.id), config.http.requestTimeoutSeconds * 1000, (outcome) => metrics.idempotency.inc({ outcome })), 'idempotency'),
    ...extra,
    // Last before the surface: a hit is answered as the surface would answer, after every other step ran.
    responseCache,
  ];
}
