import { settingsNeeding, settingsReader } from '../settings/declarations.js';
import { hostPorts, url } from '../settings/read.js';
import type { RedisConfig, RedisTopology } from './types.js';

const REDIS_TOPOLOGIES = ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'] as const;

/** At most one topology; credentials and TLS apply to whichever is set, and mean nothing without one. */
export function redisConfig(env: NodeJS.ProcessEnv, problems: string[]): RedisConfig | undefined {
  const get = settingsReader(env, problems);
  const given = REDIS_TOPOLOGIES.filter((name) => env[name]);
  const tlsGiven = get('REDIS_TLS');
  const tls = tlsGiven ?? false;
  const callDeadlineMs = get('REDIS_CALL_DEADLINE_MS');
  const username = get('REDIS_USERNAME');
  const password = get('REDIS_PASSWORD');
  const credentials = { ...(username ? { username } : {}), ...(password ? { password } : {}) };
  const sentinelOnly = settingsNeeding('REDIS_SENTINELS').filter((name) => env[name]);
  if (given.length > 1) {
    problems.push(`${given.join(' and ')} are set: choose one Redis topology (a single Redis, Sentinels or a Cluster)`);
    return undefined;
  }
  if (given.length === 0) {
    const orphans = [...settingsNeeding('a Redis'), ...settingsNeeding('REDIS_SENTINELS')].filter((name) => env[name]);
    if (orphans.length > 0) problems.push(`${orphans.join(', ')} ${orphans.length > 1 ? 'are' : 'is'} set without a Redis: set REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES`);
    return undefined;
  }
  if (given[0] !== 'REDIS_SENTINELS' && sentinelOnly.length > 0) {
    problems.push(`${sentinelOnly.join(', ')} ${sentinelOnly.length > 1 ? 'go' : 'goes'} with REDIS_SENTINELS, not ${given[0]}`);
  }
  let topology: RedisTopology;
  if (given[0] === 'REDIS_URL') {
    const raw = url(env.REDIS_URL!, 'REDIS_URL', ['redis:', 'rediss:'], problems);
    const parsed = URL.canParse(raw) ? new URL(raw) : undefined;
    if (parsed && (parsed.username || parsed.password) && (env.REDIS_USERNAME || env.REDIS_PASSWORD)) {
      problems.push('REDIS_URL carries credentials and REDIS_USERNAME or REDIS_PASSWORD is set too: give them one way');
    }
    if (parsed?.protocol === 'rediss:' && tlsGiven === false) problems.push('REDIS_URL is rediss:// (TLS) and REDIS_TLS is false: give them one way');
    topology = { kind: 'single', url: raw };
  } else if (given[0] === 'REDIS_SENTINELS') {
    const master = env.REDIS_SENTINEL_MASTER ?? '';
    if (!master) problems.push('REDIS_SENTINEL_MASTER must name the master the Sentinels watch (as in their `sentinel monitor`)');
    topology = {
      kind: 'sentinel', sentinels: hostPorts(env.REDIS_SENTINELS!, 'REDIS_SENTINELS', 26379, problems), master,
      ...(env.REDIS_SENTINEL_USERNAME ? { sentinelUsername: env.REDIS_SENTINEL_USERNAME } : {}),
      ...(env.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: env.REDIS_SENTINEL_PASSWORD } : {}),
    };
  } else {
    topology = { kind: 'cluster', nodes: hostPorts(env.REDIS_CLUSTER_NODES!, 'REDIS_CLUSTER_NODES', 6379, problems) };
  }
  return { topology, ...credentials, tls, callDeadlineMs };
}

