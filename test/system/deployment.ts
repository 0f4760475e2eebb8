import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { mariadbReplica, type MariadbReplicaLab } from '../scale/lab/mariadb-replica.js';
import { freePorts } from '../scale/lab/redis-cluster.js';
import { redisSentinel, SENTINEL_MASTER, type RedisSentinelLab } from '../scale/lab/redis-sentinel.js';
import { loadBalancer, type LoadBalancer } from './haproxy.js';
import { instance, type Instance } from './instances.js';
import { redisProxy } from './redis-proxy.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Deployment {
  /** The load balancer's address: the only one clients use. */
  readonly url: string;
  /** Where the run keeps its files: the configuration, each instance's log. */
  readonly dir: string;
  readonly instances: readonly Instance[];
  readonly database: MariadbReplicaLab;
  readonly redis: RedisSentinelLab;
  readonly balancer: LoadBalancer;
  /** The first instance's way to Redis, through a proxy of the run's own (redis-proxy.ts): a fault can cut it. */
  readonly redisPath: {
    /** The instance's name. */
    readonly instance: string;
    /** Holds everything between that instance and Redis for `ms`; resolves when it is delivered again. */
    blackhole(ms: number): Promise<void>;
  };
  /** A new key (its plan, or enterprise limits), made as an operator makes one. */
  key(plan: string, limits?: { perMinute: number; perDay: number }): Promise<string>;
  /** Stops exactly what it started, in the reverse order, whatever state each is in. */
  stop(): Promise<void>;
}

/**
 * Everything a production deployment has, on loopback ports and in folders of its own: a MariaDB primary
 * with a GTID replica the instances read from, Redis through Sentinel (a master, a replica, three
 * Sentinels), `count` instances of the built service launched as the Dockerfile launches them, and
 * HAProxy in front. The first instance reaches Redis through a proxy (redis-proxy.ts), the others
 * through Sentinel. The machine's own MariaDB and Redis are never used.
 */
export async function deploy({ count = 3, env = {} }: { count?: number; env?: Record<string, string> } = {}): Promise<Deployment> {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-system-'));
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of stops.splice(0).reverse()) await step().catch((error: unknown) => console.error('system: stopping:', error));
  };
  try {
    const database = await mariadbReplica();
    stops.push(() => database.stop());
    const redis = await redisSentinel();
    stops.push(() => redis.stop());
    const proxy = await redisProxy(redis.settings, SENTINEL_MASTER);
    stops.push(() => proxy.stop());
    // HAProxy checks /readyz every 500 ms and takes an instance out after two failures: a drain window of
    // 2 s covers that (the default's 5 leave room for Kubernetes' endpoint removal) and keeps the rolling restart short.
    const common = { DATABASE_URL: database.primaryUrl, DATABASE_REPLICA_URLS: database.replicaUrl, DRAIN_SECONDS: '2' };
    const settings = { ...common, REDIS_SENTINELS: redis.settings, REDIS_SENTINEL_MASTER: SENTINEL_MASTER, ...env };
    // One Redis topology per instance: the proxied one is given REDIS_URL alone (config.ts refuses two).
    const proxied = { ...common, REDIS_URL: proxy.url, ...env };
    const cli = (script: string, args: string[]) => run(process.execPath, [`dist/src/cli/${script}.js`, ...args], {
      cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...settings, LOG_LEVEL: 'warn' },
    });
    await cli('migrate', []);
    const [balancerPort, ...ports] = await freePorts(count + 1);
    const instances = ports.map((port, i) => instance(`instance-${i + 1}`, port, dir, i === 0 ? proxied : settings));
    stops.push(async () => { await Promise.all(instances.map((one) => one.stop('SIGTERM'))); });
    await Promise.all(instances.map((one) => one.start()));
    const balancer = await loadBalancer(dir, balancerPort!, instances);
    stops.push(() => balancer.stop());
    return {
      url: balancer.url, dir, instances, database, redis, balancer, stop,
      redisPath: { instance: instances[0]!.name, blackhole: (ms) => proxy.blackhole(ms) },
      async key(plan, limits) {
        const extra = limits ? ['--per-minute', String(limits.perMinute), '--per-day', String(limits.perDay)] : [];
        const { stdout } = await cli('keys', ['create', '--plan', plan, '--name', `system ${plan}`, ...extra]);
        return stdout.trim().split('\n').at(-1)!;
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
