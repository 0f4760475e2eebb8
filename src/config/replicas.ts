import { settingsNeeding, settingsReader } from '../settings/declarations.js';
import { url } from '../settings/read.js';
import type { ReplicaConfig } from './types.js';

/** Read replicas, when DATABASE_REPLICA_URLS lists them; their other settings are refused without it. */
export function replicaConfig(env: NodeJS.ProcessEnv, problems: string[]): ReplicaConfig | undefined {
  if (!env.DATABASE_REPLICA_URLS) {
    const orphans = settingsNeeding('DATABASE_REPLICA_URLS').filter((name) => env[name]);
    if (orphans.length > 0) problems.push(`${orphans.join(', ')} ${orphans.length > 1 ? 'are' : 'is'} set without DATABASE_REPLICA_URLS`);
    return undefined;
  }
  const urls = env.DATABASE_REPLICA_URLS.split(',').map((item) => item.trim());
  if (urls.length > 16 || urls.some((item) => !item)) {
    problems.push('DATABASE_REPLICA_URLS must be 1 to 16 mysql:// URLs, separated by commas');
  } else {
    urls.forEach((item, i) => url(item, `DATABASE_REPLICA_URLS (the ${ordinal(i + 1)})`, ['mysql:', 'mariadb:'], problems));
  }
  const get = settingsReader(env, problems);
  const maxLagSeconds = get('REPLICA_MAX_LAG_SECONDS');
  const readYourWritesSeconds = get('READ_YOUR_WRITES_SECONDS');
  const waitMs = get('REPLICA_WAIT_MS');
  // A replica's lag is read every second, in whole seconds: a write older than the window plus that is
  // on every replica that takes reads, so the window must cover it or a key could miss its own write.
  if (readYourWritesSeconds < maxLagSeconds + 2) {
    problems.push(`READ_YOUR_WRITES_SECONDS (${readYourWritesSeconds}) must be at least REPLICA_MAX_LAG_SECONDS + 2 (${maxLagSeconds + 2}): `
      + 'after the window, a key\'s reads go to any replica, which may be that far behind');
  }
  return { urls, maxLagSeconds, readYourWritesSeconds, waitMs };
}

const ordinal = (n: number) => `${n}${n === 1 ? 'st' : n === 2 ? 'nd' : n === 3 ? 'rd' : 'th'}`;

