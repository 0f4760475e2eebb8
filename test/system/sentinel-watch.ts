import { Redis } from 'ioredis';
import { SETTLE_MS } from './audit.js';
import type { FaultRecord } from './faults.js';

/** When any Sentinel saw the master down (`+sdown`), and when one changed the topology (a switch, a conversion). */
export interface FailoverLog {
  readonly sdowns: number[];
  readonly changes: number[];
}

export const SENTINELS_OWN = 'Redis failover (the Sentinels\' own)';

/** Events of one failover, from the three Sentinels, come within this of one another. */
const SAME_FAILOVER_MS = 5_000;

/** Listens to every Sentinel's view of `master` for the whole run: every topology change, asked for by a fault or not. */
export async function watchFailovers(sentinels: string, master: string): Promise<FailoverLog & { stop(): Promise<void> }> {
  const log: FailoverLog = { sdowns: [], changes: [] };
  const clients = sentinels.split(',').map((address) => {
    const [host, port] = address.split(':');
    return new Redis({ host, port: Number(port), lazyConnect: true, maxRetriesPerRequest: null }).on('error', () => undefined);
  });
  for (const client of clients) {
    client.on('message', (channel: string, message: string) => {
      const about = message.startsWith(`master ${master} `) || message.includes(` @ ${master} `);
      if (about) (channel === '+sdown' ? log.sdowns : log.changes).push(Date.now());
    });
    await client.connect();
    await client.subscribe('+sdown', '+switch-master', '+convert-to-slave');
  }
  return { ...log, stop: async () => { for (const client of clients) client.disconnect(); } };
}

/**
 * The topology changes no fault asked for: a Sentinel switched masters, or turned one into a replica, on
 * its own. Each is a fault of the run's environment, from the first `+sdown` before it (or 3 s before)
 * to its last event, logged as such and shown in the report, rather than blamed on the service as if
 * nothing had happened.
 */
export function unplannedFailovers(log: FailoverLog, faults: readonly FaultRecord[]): FaultRecord[] {
  const outside = log.changes.filter((at) => !faults.some((f) => at >= f.startedAt && at <= f.recoveredAt + SETTLE_MS)).sort((a, b) => a - b);
  const groups: number[][] = [];
  for (const at of outside) {
    const last = groups.at(-1);
    if (last && at - last.at(-1)! <= SAME_FAILOVER_MS) last.push(at);
    else groups.push([at]);
  }
  return groups.map((group) => {
    const first = group[0]!;
    const sdown = log.sdowns.filter((t) => t <= first && t >= first - 30_000)[0];
    return { name: SENTINELS_OWN, target: 'redis', startedAt: sdown ?? first - 3_000, recoveredAt: group.at(-1)! };
  });
}
