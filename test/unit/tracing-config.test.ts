import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const ENDPOINT = 'http://collector:4318';

describe('loadConfig: tracing', () => {
  it.each([
    ['no OTEL_* variable', {}],
    ['only a service name', { OTEL_SERVICE_NAME: 'pets' }],
    ['only a sampler', { OTEL_TRACES_SAMPLER: 'always_on' }],
    ['an endpoint with OTEL_SDK_DISABLED=true', { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'true' }],
    ['an endpoint with OTEL_SDK_DISABLED=TRUE', { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'TRUE' }],
    ['an endpoint with OTEL_TRACES_EXPORTER=none', { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }],
    ['OTEL_TRACES_EXPORTER=otlp with OTEL_SDK_DISABLED=true', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' }],
    // Settings for other services' SDKs, in an environment shared with them, are not refused while traces are off.
    ['a gRPC protocol and no endpoint', { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }],
    ['an unknown exporter with OTEL_SDK_DISABLED=true', { OTEL_TRACES_EXPORTER: 'zipkin', OTEL_SDK_DISABLED: 'true' }],
    ['a bad endpoint with OTEL_TRACES_EXPORTER=none', { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318', OTEL_TRACES_EXPORTER: 'none' }],
  ])('is off with %s', (_, env) => {
    expect(loadConfig(env).tracing).toBeUndefined();
  });

  it.each([
    ['OTEL_EXPORTER_OTLP_ENDPOINT', { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }, { exporter: 'otlp', protocol: 'http/protobuf' }],
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces` }, { exporter: 'otlp', protocol: 'http/protobuf' }],
    ['OTEL_TRACES_EXPORTER=otlp (the SDK\'s default endpoint)', { OTEL_TRACES_EXPORTER: 'otlp' }, { exporter: 'otlp', protocol: 'http/protobuf' }],
    ['OTEL_TRACES_EXPORTER=console', { OTEL_TRACES_EXPORTER: 'console' }, { exporter: 'console', protocol: 'http/protobuf' }],
    ['OTEL_SDK_DISABLED=false', { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'false' }, { exporter: 'otlp', protocol: 'http/protobuf' }],
    ['OTEL_EXPORTER_OTLP_PROTOCOL=http/json', { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, { exporter: 'otlp', protocol: 'http/json' }],
    [
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL over OTEL_EXPORTER_OTLP_PROTOCOL',
      { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' },
      { exporter: 'otlp', protocol: 'http/json' },
    ],
  ])('is on with %s', (_, env, expected) => {
    expect(loadConfig(env).tracing).toEqual(expected);
  });

  it.each([
    ['OTEL_TRACES_EXPORTER', { OTEL_TRACES_EXPORTER: 'zipkin' }, 'OTEL_TRACES_EXPORTER must be one of otlp, console, none, got "zipkin"'],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported'],
    ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http' }, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be one of http/protobuf, http/json'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT must start with http:// or https://'],
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' }, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not a valid URL'],
    ['OTEL_SDK_DISABLED', { OTEL_SDK_DISABLED: 'yes' }, 'OTEL_SDK_DISABLED must be true or false, in any case (OpenTelemetry\'s rule'],
  ])('refuses a bad %s, with the other problems', (_, env, problem) => {
    let thrown: unknown;
    try { loadConfig({ ...env, PORT: 'http' }); } catch (error) { thrown = error; }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).problems).toEqual([expect.stringContaining('PORT'), expect.stringContaining(problem)]);
  });
});

describe('OTEL_SDK_DISABLED: OpenTelemetry\'s own rule for booleans', () => {
  it.each(['true', 'TRUE', 'True', 'tRuE'])('%j turns traces off whatever else is set', (word) => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: word }).tracing).toBeUndefined();
  });

  it.each(['false', 'FALSE', 'False', ''])('%j leaves them on', (word) => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: word }).tracing).toEqual({ exporter: 'otlp', protocol: 'http/protobuf' });
  });

  // The other services' SDKs would read these as false (traces on): the spelling the service's other settings take is refused here.
  it.each(['1', '0', 'yes', 'no', 'on', 'off', ' true', 'disabled'])('%j stops startup, naming the setting', (word) => {
    let thrown: unknown;
    try { loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: word }); } catch (error) { thrown = error; }
    expect((thrown as ConfigError).problems).toEqual([
      `OTEL_SDK_DISABLED must be true or false, in any case (OpenTelemetry's rule: its SDKs read any other value, 1 and yes included, as false), got "${word}"`,
    ]);
  });
});
