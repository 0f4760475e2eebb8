import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const mysql = process.env.TEST_DATABASE_URL;
if (process.env.CI === 'true' && (!mysql || !process.env.TEST_REDIS_URL)) {
  // In CI a missing backend is a failure, never a silent skip.
  throw new Error('CI=true needs TEST_DATABASE_URL and TEST_REDIS_URL: the contract tests must run on MySQL and Redis too');
}

/**
 * Two test files at a time at least (vitest's default is one per core less one: a single file on a
 * 2-core machine, CI's size). A contract file spends most of its time waiting on its servers, databases
 * and timers. The scale tests run after everything else, one file at a time: each starts a lab of its own
 * (a Redis Cluster, Sentinels, a MariaDB replica) and kills parts of it on a schedule.
 */
const WORKERS = Math.max(2, availableParallelism() - 1);
/**
 * Files share their worker's modules (no isolation): each file imported the service's modules and their
 * libraries afresh, which took more of a run than the tests (the embedded project: 230 s isolated, 125 s
 * not, same machine). Each test starts its own app and store, so nothing a file does reaches the next
 * through a module.
 */
const shared = { testTimeout: 20_000, hookTimeout: 60_000, sequence: { groupOrder: 0 }, isolate: false };
// The contract tests start the built service and CLI as processes too: built once per run.
const contract = { ...shared, globalSetup: ['test/support/build.ts'] };
// Every answer a contract test gets from a test server's /v1 is judged by the OpenAPI document that server serves.
const validated = { setupFiles: ['test/support/validate-responses.ts'] };
// The browser tests use Debian's Chromium. A fresh machine may not have it (see README); CI installs it
// and then a missing browser is a failure, like a missing MySQL.
// The scale tests start their own Redis Cluster, Sentinels and MariaDB replica from Debian's packages,
// and take minutes: asked for (SCALE_TESTS=1), and always in CI, which installs the packages (a missing
// one is then a failure), never only because a developer's machine happens to have them.
/**
 * The contract tests of a backend. Some files keep modules of their own (a project apart, isolated): those
 * that start OpenTelemetry's instrumentations, which patch mysql2 and ioredis as they are required (they
 * no longer are once another file of the worker has loaded them), and those that weigh the heap or count
 * the process's handles, which must not hold what earlier files left.
 */
const OWN_MODULES = [
  'test/contract/tracing.test.ts', 'test/contract/tracing-root-share.test.ts',
  'test/contract/stream-memory.test.ts', 'test/contract/properties/answer-size.test.ts',
  // Counts the process's timers and sockets before and after: earlier files' must not come and go meanwhile.
  'test/contract/startup-failure.test.ts',
];
const contractProjects = (name: string, backend: string) => [
  { extends: true as const, test: { ...contract, ...validated, name, include: ['test/contract/**/*.test.ts'], exclude: OWN_MODULES, env: { TEST_BACKEND: backend } } },
  { extends: true as const, test: { ...contract, ...validated, isolate: true, name: `${name}:isolated`, include: OWN_MODULES, env: { TEST_BACKEND: backend } } },
];

const lab = process.env.CI === 'true' || process.env.SCALE_TESTS === '1';
const chromium = existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') || process.env.CI === 'true';

export default defineConfig({
  // Node resolves `graphql` to its CommonJS build (the package has no "exports"), Vite to index.mjs: two
  // copies of graphql-js then meet in one schema. Use the one Node uses in production.
  resolve: { alias: [{ find: /^graphql$/, replacement: fileURLToPath(new URL('./node_modules/graphql/index.js', import.meta.url)) }] },
  test: {
    maxWorkers: WORKERS,
    projects: [
      { extends: true as const, test: { ...shared, name: 'unit', include: ['test/unit/**/*.test.ts', 'test/*.test.ts'] } },
      ...contractProjects('embedded', 'embedded'),
      ...(chromium
        ? [{ extends: true as const, test: { ...shared, testTimeout: 60_000, name: 'browser', include: ['test/browser/**/*.test.ts'], env: { TEST_BACKEND: 'embedded' } } }]
        : []),
      ...(lab
        ? [{ extends: true as const, test: { ...contract, testTimeout: 60_000, maxWorkers: 1, sequence: { groupOrder: 1 }, name: 'scale', include: ['test/scale/**/*.test.ts'], env: { TEST_BACKEND: 'embedded' } } }]
        : []),
      ...(mysql ? contractProjects('mysql', 'mysql') : []),
    ],
  },
});
