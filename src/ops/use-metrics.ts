import { timingSafeEqual } from 'node:crypto';
import { getOperationAST, type ExecutionArgs } from 'graphql';
import { bearerToken } from '../auth/keys.js';
import { appError } from '../errors.js';
import type { Step } from '../pipeline/pipeline.js';
import { Response } from '../pipeline/response.js';
import type { PublicEndpoint } from '../pipeline/routing.js';
import type { Metrics } from './metrics.js';

/** Request count and latency by route and status, and refusals by reason, for every response. */
export function useMetrics(metrics: Metrics): Step {
  return {
    onResponse({ request, response, serverContext }) {
      const labels = { method: request.method, route: serverContext.route?.label ?? 'unmatched', status: response.status };
      metrics.requests.inc(labels);
      metrics.duration.observe(labels, (performance.now() - serverContext.startedAt) / 1000);
      if (serverContext.refusal) metrics.refusals.inc({ reason: serverContext.refusal });
    },
  };
}

/** Operation names come from clients: past this many, new ones are counted as `other`. */
const MAX_OPERATION_NAMES = 200;

/** Counts each GraphQL operation executed, by name and type, on whichever lane runs it. */
export function operationCounter(metrics: Metrics): (args: Pick<ExecutionArgs, 'document' | 'operationName'>) => void {
  const seen = new Set<string>();
  return ({ document, operationName }) => {
    const operation = getOperationAST(document, operationName);
    let name = operation?.name?.value ?? 'anonymous';
    if (!seen.has(name)) {
      if (seen.size >= MAX_OPERATION_NAMES) name = 'other';
      else seen.add(name);
    }
    metrics.operations.inc({ operation: name, type: operation?.operation ?? 'unknown' });
  };
}

/** `/metrics` in Prometheus' text format: public, or for `Authorization: Bearer <METRICS_TOKEN>` only. */
export function metricsEndpoint(metrics: Metrics, token: string | undefined): PublicEndpoint {
  const expected = token ? Buffer.from(token) : undefined;
  return {
    async get(request) {
      if (expected) {
        const given = Buffer.from(bearerToken(request.headers.get('authorization')) ?? '');
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
          throw appError('UNAUTHENTICATED', '/metrics needs Authorization: Bearer <METRICS_TOKEN>', { headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' } });
        }
      }
      return new Response(await metrics.registry.metrics(), { headers: { 'content-type': metrics.registry.contentType } });
    },
  };
}
