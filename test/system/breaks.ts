import { sleep } from '../support/time.js';
import type { Deployment } from './deployment.js';

/**
 * What SYSTEM_BREAK may break, to show the auditor failing (a comma-separated list of these):
 * - `keyless`: the writers send no Idempotency-Key, so a retry after a lost answer writes again;
 * - `no-resume`: the subscribers reconnect without Last-Event-ID, so they miss what came in between;
 * - `webhook-ack`: a receiver acknowledges every 50th delivery without keeping it;
 * - `webhook-secret`: a receiver checks signatures against a secret that is not its endpoint's;
 * - `limits`: the REST greedy key is made with twice the limit the auditor holds it to;
 * - `unlogged-fault`: an instance is killed half-way through the run, a fault nobody logged;
 * - `crash`: an instance dies a third of the way through (killed behind the run's back), as a crash would.
 */
export const BREAKS = ['keyless', 'no-resume', 'webhook-ack', 'webhook-secret', 'limits', 'unlogged-fault', 'crash'] as const;
export type Break = typeof BREAKS[number];

export function breaks(setting: string | undefined): ReadonlySet<Break> {
  const names = (setting ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !(BREAKS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`SYSTEM_BREAK: ${unknown.join(', ')} unknown; known: ${BREAKS.join(', ')}`);
  return new Set(names as Break[]);
}

/** The `unlogged-fault` break: the last instance killed at `at` and started again, with no record of it. */
export async function unloggedFault(deployment: Deployment, at: number): Promise<void> {
  await sleep(Math.max(0, at - Date.now()));
  const victim = deployment.instances.at(-1)!;
  await victim.stop('SIGKILL');
  await victim.start();
}

/** The `crash` break: the first instance's process killed at `at`, not through its stop(), and started again. */
export async function crash(deployment: Deployment, at: number): Promise<void> {
  await sleep(Math.max(0, at - Date.now()));
  const victim = deployment.instances[0]!;
  const dying = victim.process()!;
  const exited = new Promise((resolve) => dying.once('exit', resolve));
  dying.kill('SIGKILL');
  await exited;
  await victim.start();
}
