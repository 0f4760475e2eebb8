/**
 * The share of requests without a parent trace that are traced, when this service can decide it before
 * any span exists: with `OTEL_TRACES_SAMPLER=parentbased_traceidratio` and a ratio in [0, 1]. Every other
 * sampler (and a ratio the SDK would refuse) is left to the SDK, which reads the same variables.
 */
export function rootShareOf(env: NodeJS.ProcessEnv): number | undefined {
  if (env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() !== 'parentbased_traceidratio') return undefined;
  const given = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  // The SDK's default ratio, when none is given: every trace.
  if (!given) return 1;
  const ratio = Number(given);
  return Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : undefined;
}
