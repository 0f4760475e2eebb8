import { sleep } from '../support/time.js';
import type { Deployment } from './deployment.js';

/** One fault as it happened: what, on what, from when until the system was whole again. */
export interface FaultRecord {
  readonly name: string;
  readonly target: string;
  readonly startedAt: number;
  readonly recoveredAt: number;
}

export type FaultName = 'kill -9 an instance' | 'rolling restart' | 'Redis master killed' | 'Redis blackhole (one instance)'
  | 'replica stopped' | 'primary restarted';

/** Each fault: what it does to the deployment, and what it names as its target. Resolves once it is over. */
const FAULTS: Record<FaultName, (deployment: Deployment, round: number) => Promise<string>> = {
  // A lost machine: the load balancer takes it out; the run's supervisor starts it again.
  async 'kill -9 an instance'(deployment, round) {
    const victim = deployment.instances[round % deployment.instances.length]!;
    await victim.stop('SIGKILL');
    await victim.start();
    return victim.name;
  },
  // A deploy: each instance in turn drains (SIGTERM) and comes back before the next goes.
  async 'rolling restart'(deployment) {
    for (const one of deployment.instances) {
      await one.stop('SIGTERM');
      await one.start();
    }
    return 'every instance';
  },
  async 'Redis master killed'(deployment) {
    const master = await deployment.redis.master();
    await deployment.redis.kill(master);
    // Sentinel promotes the replica; the old master comes back as its replica once every Sentinel has taken
    // in the failover, and the fault is over when they all see it back and in sync. Restarted sooner, or
    // ended sooner, a Sentinel with the old view turned the new master back into a replica 13 s later,
    // outside any fault (seen in a run here).
    const promoted = await deployment.redis.agreedAfter(master);
    await deployment.redis.restart(master);
    await deployment.redis.settledOn(promoted);
    return `redis ${master}`;
  },
  // A partition between one instance and Redis: no close, no error, just silence, then all of it at once.
  async 'Redis blackhole (one instance)'(deployment) {
    await deployment.redisPath.blackhole(8_000);
    return deployment.redisPath.instance;
  },
  async 'replica stopped'(deployment) {
    await deployment.database.killReplica();
    await sleep(5_000);
    await deployment.database.startReplica();
    return 'mariadb replica';
  },
  async 'primary restarted'(deployment) {
    await deployment.database.restartPrimary();
    return 'mariadb primary';
  },
};

export const FAULT_NAMES = Object.keys(FAULTS) as FaultName[];

/** About how long one round of every fault takes here (the rolling restart most of it): for spacing them. */
const ROUND_MS = 90_000;

/** The quiet spell before each fault, so that `rounds` rounds of the `chosen` faults fit in the run. */
export const gapFor = (runMs: number, rounds: number, chosen: readonly FaultName[] = FAULT_NAMES) =>
  Math.max(5_000, (runMs - rounds * ROUND_MS * (chosen.length / FAULT_NAMES.length)) / (rounds * chosen.length + 1));

/** `--faults a,b`: those faults only (to chase one), each a name of FAULT_NAMES; none given: all of them. */
export function chosenFaults(setting: string | undefined): FaultName[] {
  if (!setting) return FAULT_NAMES;
  const names = setting.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !(FAULT_NAMES as string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) throw new Error(`--faults: ${unknown.join(', ') || 'none given'} unknown; known: ${FAULT_NAMES.join(', ')}`);
  return names as FaultName[];
}

/**
 * Runs every fault in turn, spread over the run: after a quiet spell of `gapMs`, the next fault, until
 * `until`. Each is logged as it starts and ends, with its time.
 */
export async function faultSchedule(
  deployment: Deployment, until: number, gapMs: number, log: FaultRecord[], chosen: readonly FaultName[] = FAULT_NAMES,
): Promise<void> {
  for (let round = 0; ; round++) {
    for (const name of chosen) {
      await sleep(gapMs);
      if (Date.now() + 15_000 > until) return;
      const startedAt = Date.now();
      console.log(`system: ${new Date(startedAt).toISOString()} fault: ${name}`);
      const target = await FAULTS[name](deployment, round);
      const record = { name, target, startedAt, recoveredAt: Date.now() };
      log.push(record);
      console.log(`system: ${new Date(record.recoveredAt).toISOString()} over: ${name} (${target}), ${record.recoveredAt - startedAt} ms`);
    }
  }
}
