import { describe, expect, it } from 'vitest';
import { rootShareOf } from '../../src/tracing/root-share.js';

describe('the share of parentless requests the service draws itself', () => {
  it.each<[Record<string, string>, number | undefined]>([
    [{ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }, 0.1],
    [{ OTEL_TRACES_SAMPLER: ' ParentBased_TraceIdRatio ', OTEL_TRACES_SAMPLER_ARG: '0' }, 0],
    [{ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio' }, 1],
    // Left to the SDK: another sampler, or a ratio it would refuse (it warns and samples every trace).
    [{ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' }, undefined],
    [{ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: 'a tenth' }, undefined],
    [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }, undefined],
    [{}, undefined],
  ])('%j -> %s', (env, share) => {
    expect(rootShareOf(env)).toBe(share);
  });
});
