import { timingSafeEqual } from 'node:crypto';
import { getOperationAST } from 'graphql';
import { bearerToken } from '../auth/keys.js';
import { appError, STATUS } from '../errors.js';
import type { OperationObserver } from '../graphql/direct.js';
import type { Step } from '../pipeline/pipeline.js';
import { Response } from '../pipeline/response.js';
import type { PublicEndpoint } from '../pipeline/routing.js';
import type { Metrics } from './metrics.js';

declare module '../pipeline/context.js' {
  interface ServerContext {
    /** Counted among the requests in flight (the metrics). */
    inFlight?: boolean;
  }
}

/** Codes are bounded to ours: anything else (a library's) is counted as INTERNAL, as the client is told. */
const KNOWN_CODES: ReadonlySet<string> = new Set(Object.keys(STATUS));

interface RouteSeries {
  requests: { inc(): void };
  duration: { observe(seconds: number): void };
}

/**
 * Request count and latency by route and status, requests in flight, and refusals by reason, for every
 * API and page request; probes and scrapes only counted, apart. Each method, route and status's series
 * are found once (a request costs two increments, not two label hashes).
 */
export function useMetrics(metrics: Metrics): Step {
  const series = new Map<string, RouteSeries>();
  const seriesOf = (method: string, route: string, status: number): RouteSeries => {
    const name = `${method} ${route} ${status}`;
    let found = series.get(name);
    if (!found) {
      const labels = { method, route, status };
      series.set(name, found = { requests: metrics.requests.labels(labels), duration: metrics.duration.labels(labels) });
    }
    return found;
  };
  return {
    onRequest({ serverContext }) {
      if (serverContext.route?.probe) return;
      serverContext.inFlight = true;
      metrics.inFlight.count++;
    },
    onResponse({ request, response, serverContext }) {
      const route = serverContext.route;
      if (route?.probe) {
        metrics.probes.inc({ route: route.label, status: response.status });
        return;
      }
      if (serverContext.inFlight) {
        serverContext.inFlight = false;
        metrics.inFlight.count--;
      }
      const found = seriesOf(request.method, route?.label ?? 'unmatched', response.status);
      found.requests.inc();
      found.duration.observe((performance.now() - serverContext.startedAt) / 1000);
      if (serverContext.refusal) metrics.refusals.inc({ reason: serverContext.refusal });
    },
  };
}

/** Operation names come from clients: past this many, new ones are counted as `other`. */
const MAX_OPERATION_NAMES = 100;

/**
 * Each GraphQL operation executed, on whichever lane runs it: counted by name and type, and once its
 * result is known, its time and its errors by code. A stream's result (a subscription, an incremental
 * answer) is counted, not timed.
 */
export function operationObserver(metrics: Metrics): OperationObserver {
  const series = new Map<string, { executed: { inc(): void }; duration: { observe(seconds: number): void } }>();
  const names = new Set<string>();
  const seriesOf = (given: string, type: string) => {
    let name = given;
    if (!names.has(name)) {
      if (names.size >= MAX_OPERATION_NAMES) name = 'other';
      else names.add(name);
    }
    const id = `${type} ${name}`;
    let found = series.get(id);
    if (!found) {
      const labels = { operation: name, type };
      series.set(id, found = { executed: metrics.operations.labels(labels), duration: metrics.operationDuration.labels(labels) });
    }
    return found;
  };
  return ({ document, operationName }) => {
    const operation = getOperationAST(document, operationName);
    const { executed, duration } = seriesOf(operation?.name?.value ?? 'anonymous', operation?.operation ?? 'unknown');
    executed.inc();
    const started = performance.now();
    return (result) => {
      if (!result || Symbol.asyncIterator in result) return;
      duration.observe((performance.now() - started) / 1000);
      for (const error of result.errors ?? []) {
        const code = (error.extensions as { code?: unknown } | undefined)?.code;
        metrics.graphqlErrors.inc({ code: typeof code === 'string' && KNOWN_CODES.has(code) ? code : 'INTERNAL' });
      }
    };
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
