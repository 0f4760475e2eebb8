import { createRequire } from 'node:module';
import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler, BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider, ParentBasedSampler, type SpanExporter, type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Plugin } from 'graphql-yoga';
import type { TracingConfig } from '../config.js';
import type { OperationChecker } from '../graphql/operation-checker.js';
import { log } from '../log.js';
import type { Handler, Step } from '../pipeline/pipeline.js';
import { tracedChecks, tracedExecute, tracedRememberedValidation, useGraphQLTracing } from './graphql.js';
import { RequestSpansOnly } from './request-spans.js';
import { sampledIORedis, sampledMySQL2 } from './sampled-instrumentations.js';
import { activeTraceId, tracedRequests } from './requests.js';
import { rootShareOf } from './root-share.js';
import { tracedStep } from './steps.js';

/** OTEL_SERVICE_NAME (or service.name in OTEL_RESOURCE_ATTRIBUTES) names it otherwise. */
const SERVICE_NAME = 'animal-store-gateway';

/** The longest shutdown waits for the last spans to go out: a collector that is down does not hold the exit. */
const SHUTDOWN_MS = 5_000;

/** What createApp wraps, at assembly, when traces are on; with them off it gets none of it. */
export interface Tracing {
  /** The pipeline, in a span per request. */
  requests(handler: Handler): Handler;
  /** A step whose request hook may wait, in a span of its own. */
  step(step: Step, name: string): Step;
  /** The GraphQL operation checks (the parse), in a span. */
  checks(check: OperationChecker): OperationChecker;
  /** An executor (REST's), in a span. */
  execute<E extends Parameters<typeof tracedExecute>[1]>(execute: E): E;
  /** Yoga's validate, execute and subscribe, in spans. */
  readonly graphql: Plugin;
  /** A validation the direct lane remembered, as a span. */
  rememberedValidation(): void;
  /** The trace id of the request being answered (in its log line). */
  traceId(): string | undefined;
  /** Exports the spans still held, then stops. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /** Where ended spans go; by default batched (OTEL_BSP_*) to the configured exporter. Tests collect them in memory. */
  readonly processor?: SpanProcessor;
}

/** The exporters read their endpoint, headers, timeout and compression from the OTEL_EXPORTER_OTLP_* variables. */
function exporterOf({ exporter, protocol }: TracingConfig): SpanExporter {
  if (exporter === 'console') return new ConsoleSpanExporter();
  return protocol === 'http/json' ? new JsonExporter() : new ProtobufExporter();
}

/** The SDK's report, which for a failed export is the error as JSON: its message, when it has one. */
function detailOf(message: string): string {
  try {
    const parsed = JSON.parse(message) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch { /* a sentence, not JSON */ }
  return message.slice(0, 1_000);
}

/**
 * A collector that is down or refuses spans costs no request anything (spans are exported in the
 * background, and dropped when its queue is full) and is only logged: a warning per failed export.
 */
const warn = (message: string) => log.warn({ detail: detailOf(message) }, 'tracing: the OpenTelemetry SDK reports a problem (spans may be lost; requests are not affected)');
const diagLog: DiagLogger = {
  error: warn,
  warn,
  info: () => undefined,
  debug: () => undefined,
  verbose: () => undefined,
};

/**
 * Starts the SDK: the provider with its AsyncLocalStorage context and W3C propagation, the exporter, and
 * the mysql2 and ioredis instrumentations. Call it before the app's modules are imported (main.ts does):
 * instrumentations patch a library as it is `require`d. mysql2 is required by TypeORM, but ioredis is
 * imported by our ESM code, which require hooks never see; requiring both here, first, has them patched
 * in place (their prototypes), and the ESM imports later get the same, patched, modules.
 */
export function startTracing(config: TracingConfig, { processor }: TracingOptions = {}): Tracing {
  diag.setLogger(diagLog, DiagLogLevel.WARN);
  // With a ratio for requests without a parent, tracedRequests draws it before any span is made (an
  // unsampled request then costs no span, no context and no ids); the SDK follows the parent, and
  // records every root request that was drawn.
  const rootShare = rootShareOf(process.env);
  const provider = new NodeTracerProvider({
    ...(rootShare === undefined ? {} : { sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }) }),
    resource: defaultResource()
      .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: SERVICE_NAME }))
      .merge(detectResources({ detectors: [envDetector] })),
    spanProcessors: [new RequestSpansOnly(processor ?? new BatchSpanProcessor(exporterOf(config)))],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [sampledMySQL2(), sampledIORedis()],
  });
  // Through require, now, so the hooks patch them before the app's ESM imports get them (see above).
  const require = createRequire(import.meta.url);
  for (const name of ['mysql2', 'ioredis']) require(name);

  const tracer = provider.getTracer(SERVICE_NAME);
  return {
    requests: (handler) => tracedRequests(tracer, handler, rootShare),
    step: (step, name) => tracedStep(tracer, step, name),
    checks: (check) => tracedChecks(tracer, check),
    execute: (execute) => tracedExecute(tracer, execute),
    graphql: useGraphQLTracing(tracer),
    rememberedValidation: tracedRememberedValidation(tracer),
    traceId: activeTraceId,
    shutdown: () => Promise.race([provider.shutdown(), new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_MS).unref())]),
  };
}
