import fc from 'fast-check';

/**
 * fast-check's settings for the property tests: a fixed seed and a few thousand cases by default, so CI
 * runs the same cases every time; `npm run fuzz` sets FUZZ_RUNS higher and FUZZ_SEED=random. A failure
 * prints its seed and path: FUZZ_SEED=<seed> with fast-check's path replays it.
 */
const runs = Number(process.env.FUZZ_RUNS ?? 2_000);
const seed = process.env.FUZZ_SEED === 'random' ? Date.now() ^ (Math.random() * 0x7fffffff) : Number(process.env.FUZZ_SEED ?? 20261123);

export const fuzzParameters: fc.Parameters<unknown> = { numRuns: runs, seed, endOnFailure: true, verbose: 1 };

export const FUZZ_RUNS = runs;
