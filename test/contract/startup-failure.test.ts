import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Tracing } from '../../src/tracing/start.js';
import { backend, freshStore, type Store } from '../support/backend.js';

let store: Store;
beforeAll(async () => { store = await freshStore(); });
afterAll(async () => { await store?.drop(); });

/** The handles that keep a process alive, by kind (timers, sockets), as Node counts them now. */
const handles = () => {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
};

// Startup opens the database, Redis, replicas, timers (the outbox poll, the webhook dispatcher, the
// pruning, the deprecated-call log) before it builds the last piece; a failure there must close them all.
it('closes everything it opened when startup fails half-way: no timer, no socket left, the traces shut down', async () => {
  const config = loadConfig({
    LOG_LEVEL: 'silent', REDIS_PREFIX: `test-${randomBytes(4).toString('hex')}`,
    ...(backend === 'mysql' ? { REDIS_URL: process.env.TEST_REDIS_URL! } : {}), ...store.env,
  });
  const before = handles();
  let shutdowns = 0;
  // The last thing startup builds is the traced request handler: the traces, given, fail to wrap it.
  const tracing = {
    requests: () => { throw new Error('the traces could not wrap the pipeline'); },
    step: (step: unknown) => step, checks: (check: unknown) => check, execute: (execute: unknown) => execute,
    graphql: {}, traceId: () => undefined,
    shutdown: async () => { shutdowns += 1; },
  } as unknown as Tracing;

  await expect(createApp(config, { tracing })).rejects.toThrow('the traces could not wrap the pipeline');
  expect(shutdowns).toBe(1);
  // Sockets close on their next turn of the loop.
  await expect.poll(() => Object.fromEntries(handles()), { timeout: 5_000 }).toEqual(Object.fromEntries(before));
});
