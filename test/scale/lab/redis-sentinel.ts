import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePorts, info, ping, startNode, stopNode, until, type RedisNode } from './redis-cluster.js';

export const SENTINEL_MASTER = 'lab';

export interface RedisSentinelLab {
  /** For REDIS_SENTINELS. */
  readonly settings: string;
  /** Each Sentinel's log file (its view of the master: +sdown, +odown, +switch-master). */
  readonly logs: readonly string[];
  /** The port of the data node that is master now. */
  master(): Promise<number>;
  kill(port: number): Promise<void>;
  /** Starts a killed data node again, as a replica of whichever node is master now (as Sentinel would make it). */
  restart(port: number): Promise<void>;
  /**
   * Resolves when every Sentinel names `master` as the master and sees the other data node as its replica,
   * and that replica is in sync: the topology is whole again, and no Sentinel still holds an older view
   * (one that did would later turn the master back into a replica, a failover nobody asked for).
   */
  settledOn(master: number, ms?: number): Promise<void>;
  /** Resolves when every Sentinel names a master other than `old`, the same one; resolves to its port. */
  agreedAfter(old: number, ms?: number): Promise<number>;
  stop(): Promise<void>;
}

/**
 * A master, one replica and three Sentinels on loopback, each in the lab's folder. The Sentinels call the
 * master down after 1 s without an answer (production's 30 s would make a failover test wait that long).
 */
export async function redisSentinel(): Promise<RedisSentinelLab> {
  const root = await mkdtemp(join(tmpdir(), 'animal-store-lab-sentinel-'));
  const [masterPort, replicaPort, ...sentinelPorts] = await freePorts(5);
  const data: RedisNode[] = [{ port: masterPort!, dir: root }, { port: replicaPort!, dir: root }];
  const sentinels: RedisNode[] = sentinelPorts.map((port) => ({ port, dir: root }));
  const stop = async () => {
    await Promise.all([...sentinels, ...data].map((node) => stopNode(node)));
    await rm(root, { recursive: true, force: true });
  };
  try {
    startNode(data[0]!, ['--dbfilename', `dump-${masterPort}.rdb`]);
    startNode(data[1]!, ['--dbfilename', `dump-${replicaPort}.rdb`, '--replicaof', '127.0.0.1', String(masterPort)]);
    for (const node of data) await until(`redis ${node.port}`, () => ping(node.port));
    await until('the replica in sync', async () => (await info(replicaPort!, 'replication')).includes('master_link_status:up'));
    for (const node of sentinels) {
      // A Sentinel rewrites its own file (it records the replicas and the other Sentinels it finds).
      const file = join(root, `sentinel-${node.port}.conf`);
      await writeFile(file, [
        `port ${node.port}`, 'bind 127.0.0.1', `dir ${root}`, `logfile ${join(root, `sentinel-${node.port}.log`)}`,
        `sentinel monitor ${SENTINEL_MASTER} 127.0.0.1 ${masterPort} 2`,
        `sentinel down-after-milliseconds ${SENTINEL_MASTER} 1000`,
        `sentinel failover-timeout ${SENTINEL_MASTER} 5000`,
        '',
      ].join('\n'));
      node.process = (await import('node:child_process')).spawn('redis-server', [file, '--sentinel'], { stdio: 'ignore', cwd: root });
    }
    for (const node of sentinels) await until(`sentinel ${node.port}`, () => ping(node.port));
    await until('the Sentinels know each other', async () => {
      const seen = await Promise.all(sentinels.map((node) => info(node.port, 'sentinel')));
      return seen.every((text) => /sentinels=3/.test(text));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    settings: sentinels.map((node) => `127.0.0.1:${node.port}`).join(','),
    logs: sentinels.map((node) => join(root, `sentinel-${node.port}.log`)),
    async master() {
      for (const node of data) {
        if ((await info(node.port, 'replication').catch(() => '')).includes('role:master')) return node.port;
      }
      throw new Error('lab: no master');
    },
    async kill(port) { await stopNode(data.find((node) => node.port === port)!, 'SIGKILL'); },
    async restart(port) {
      const node = data.find((one) => one.port === port)!;
      const master = data.find((one) => one !== node)!;
      startNode(node, ['--dbfilename', `dump-${port}.rdb`, '--replicaof', '127.0.0.1', String(master.port)]);
      await until(`redis ${port}`, () => ping(port));
    },
    async agreedAfter(old, ms = 30_000) {
      let agreed = 0;
      await until(`every Sentinel on one new master after ${old}`, async () => {
        const views = await Promise.all(sentinels.map((node) => sentinelView(node.port).catch(() => undefined)));
        const masters = new Set(views.map((view) => view?.master));
        agreed = views[0]?.master ?? 0;
        return masters.size === 1 && agreed !== 0 && agreed !== old;
      }, ms);
      return agreed;
    },
    async settledOn(master, ms = 60_000) {
      const replica = data.find((node) => node.port !== master)!.port;
      await until(`every Sentinel on master ${master} with replica ${replica} in sync`, async () => {
        const views = await Promise.all(sentinels.map((node) => sentinelView(node.port).catch(() => undefined)));
        const replication = await info(replica, 'replication').catch(() => '');
        return views.every((view) => view?.master === master && view.replicas.includes(replica))
          && replication.includes(`master_port:${master}`) && replication.includes('master_link_status:up');
      }, ms);
    },
    stop,
  };
}

/** One Sentinel's view of the lab's master: its port, and the replicas it takes as healthy. */
async function sentinelView(port: number): Promise<{ master: number; replicas: number[] }> {
  const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0, connectTimeout: 500, retryStrategy: () => null }).on('error', () => undefined);
  try {
    const [, masterPort] = await client.call('SENTINEL', 'get-master-addr-by-name', SENTINEL_MASTER) as [string, string];
    const listed = await client.call('SENTINEL', 'replicas', SENTINEL_MASTER) as string[][];
    const healthy = listed.map((fields) => Object.fromEntries(fields.flatMap((value, i) => (i % 2 === 0 ? [[value, fields[i + 1]]] : []))))
      .filter((replica) => replica.flags === 'slave');
    return { master: Number(masterPort), replicas: healthy.map((replica) => Number(replica.port)) };
  } finally {
    client.disconnect();
  }
}
