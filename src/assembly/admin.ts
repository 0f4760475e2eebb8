import { keyAdministration } from '../admin/key-administration.js';
import { adminOpenApi } from '../admin/openapi.js';
import { ADMIN_BASE, adminRoutes } from '../admin/routes.js';
import { useOperator } from '../admin/use-operator.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { adminAudit } from '../db/admin-audit.js';
import type { Metrics } from '../ops/metrics.js';
import { useMetrics } from '../ops/use-metrics.js';
import { useRequestLog } from '../ops/use-request-log.js';
import { staticAsset } from '../pages/static-asset.js';
import { nodeListener, type Listener } from '../pipeline/node-listener.js';
import { createPipeline } from '../pipeline/pipeline.js';
import { createRouter } from '../pipeline/routing.js';
import { useDraining } from '../pipeline/use-draining.js';
import { usePublicEndpoints } from '../pipeline/use-public-endpoints.js';
import { useRejection, useRequestChecks } from '../pipeline/use-request-checks.js';
import { useRouting } from '../pipeline/use-routing.js';
import { useSecurityHeaders } from '../pipeline/use-security-headers.js';
import type { Stores } from './stores.js';

export const ADMIN_DOCUMENT = `${ADMIN_BASE}/openapi.json`;

/**
 * The admin API (keys over HTTP) when ADMIN_PORT is set: a listener of its own, through the same steps as
 * the API's requests (routing, the access log, the metrics, security headers, draining, the request
 * checks and the Error body), with an operator's token where the API takes keys, and no rate limit (its
 * callers are operators, and its tokens too long to guess).
 */
export function adminListener(
  config: Config, { dataSource, keys }: Stores, metrics: Metrics, clock: Clock, state: { leaving: () => boolean; draining: () => boolean },
): Listener | undefined {
  if (!config.admin) return undefined;
  const now = () => clock.now();
  const administration = keyAdministration(keys, adminAudit(dataSource, now), now);
  const router = createRouter({
    api: [adminRoutes(administration, now)],
    probes: {},
    pages: { [ADMIN_DOCUMENT]: { get: staticAsset(JSON.stringify(adminOpenApi), 'application/json; charset=utf-8') } },
  });
  return nodeListener(createPipeline([
    useRouting(router.resolve),
    useRequestLog({ sample: config.accessLogSample }),
    useMetrics(metrics),
    useSecurityHeaders(),
    useDraining(state.draining),
    usePublicEndpoints('page'),
    useOperator(config.admin.operators, config.trustProxyHops),
    useRequestChecks({ when: () => true, documentation: ADMIN_DOCUMENT }),
    useRejection(),
  ]), state.leaving);
}
