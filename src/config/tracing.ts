import { oneOf, otelBoolean, url } from '../settings/read.js';
import type { TracingConfig } from './types.js';

const TRACES_EXPORTERS = ['otlp', 'console', 'none'] as const;
const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;

/**
 * Traces are on when an exporter is named (OTEL_TRACES_EXPORTER) or an OTLP endpoint is given, unless
 * OTEL_SDK_DISABLED is true or the exporter is `none`; off by default. Decided once, here: when off,
 * main.ts loads nothing of OpenTelemetry, and the other OTEL_* variables (which an environment may set
 * for every service it runs) are not this service's to judge. gRPC is refused rather than sent as HTTP
 * to a gRPC port.
 */
export function tracingConfig(env: NodeJS.ProcessEnv, problems: string[]): TracingConfig | undefined {
  if (otelBoolean(env.OTEL_SDK_DISABLED, 'OTEL_SDK_DISABLED', problems)) return undefined;
  const endpoints = (['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'] as const).filter((name) => env[name]);
  if (!env.OTEL_TRACES_EXPORTER && endpoints.length === 0) return undefined;
  const exporter = oneOf(env.OTEL_TRACES_EXPORTER, 'OTEL_TRACES_EXPORTER', TRACES_EXPORTERS, 'otlp', problems);
  if (exporter === 'none') return undefined;
  for (const name of endpoints) url(env[name]!, name, ['http:', 'https:'], problems);
  const protocolName = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const given = env[protocolName];
  if (given === 'grpc') {
    problems.push(`${protocolName}=grpc is not supported: OTLP goes over HTTP (http/protobuf or http/json)`);
    return undefined;
  }
  return { exporter, protocol: oneOf(given, protocolName, OTLP_PROTOCOLS, 'http/protobuf', problems) };
}

