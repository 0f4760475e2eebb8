import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

const run = promisify(execFile);

/** Whether a loopback port can be listened on now. */
const free = (port: number) => new Promise<boolean>((resolve) => {
  const server = createServer().once('error', () => resolve(false)).listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
});

/**
 * `count` ports in a row, each with its cluster bus port (+10000) free too, from a random start: two
 * labs, or a lab and anything else on the machine, never meet.
 */
export async function freePorts(count: number): Promise<number[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 9_000);
    const ports = Array.from({ length: count }, (_, i) => base + i);
    let ok = true;
    for (const port of ports) if (!(await free(port)) || !(await free(port + 10_000))) { ok = false; break; }
    if (ok) return ports;
  }
  throw new Error('no free loopback ports for the lab');
}

export const until = async (what: string, check: () => Promise<boolean>, ms = 20_000) => {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`lab: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

export interface RedisNode {
  readonly port: number;
  readonly dir: string;
  process?: ChildProcess;
}

/** A redis-server of the lab's own, in its own folder; stopped by its own handle, never by name. */
export function startNode(node: RedisNode, args: readonly string[]): void {
  node.process = spawn('redis-server', [
    '--port', String(node.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', node.dir, ...args,
  ], { stdio: 'ignore', cwd: node.dir });
}

export async function stopNode(node: RedisNode, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const child = node.process;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGCONT');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** A client for one look at one node: its failures are the caller's answer, not an error event. */
const probe = (port: number, lazyConnect = false) => new Redis({
  port, host: '127.0.0.1', lazyConnect, maxRetriesPerRequest: 0, connectTimeout: 500, retryStrategy: () => null,
}).on('error', () => undefined);

export const ping = async (port: number) => {
  const client = probe(port, true);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } finally {
    client.disconnect();
  }
};

export const info = async (port: number, section: string) => {
  const client = probe(port);
  try {
    return await client.info(section);
  } finally {
    client.disconnect();
  }
};

export interface RedisClusterLab {
  /** Every node (masters first), for REDIS_CLUSTER_NODES. */
  readonly nodes: readonly RedisNode[];
  readonly settings: string;
  /** The ports of the nodes that are masters now (a failover changes them). */
  masters(): Promise<number[]>;
  /** `INFO commandstats` summed over the masters: calls per command (scripts' inner calls included). */
  commandStats(): Promise<Record<string, number>>;
  resetStats(): Promise<void>;
  /** A `CLUSTER INFO` counter summed over every node that answers (`cluster_stats_messages_publish_received`…). */
  clusterCounter(name: string): Promise<number>;
  kill(port: number): Promise<void>;
  start(port: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A Redis Cluster on loopback: `masters` masters, each with `replicasEach` replicas, a node timeout of
 * 2 s (production's 15 s would make a failover test wait that long).
 */
export async function redisCluster({ masters = 3, replicasEach = 0 } = {}): Promise<RedisClusterLab> {
  const root = await mkdtemp(join(tmpdir(), 'animal-store-lab-cluster-'));
  const ports = await freePorts(masters * (1 + replicasEach));
  const nodes: RedisNode[] = ports.map((port) => ({ port, dir: root }));
  const args = (port: number) => [
    '--cluster-enabled', 'yes', '--cluster-config-file', join(root, `nodes-${port}.conf`), '--cluster-node-timeout', '2000',
    '--maxmemory', '64mb', '--repl-diskless-sync-delay', '0', '--dbfilename', `dump-${port}.rdb`,
  ];
  const stop = async () => {
    await Promise.all(nodes.map((node) => stopNode(node)));
    await rm(root, { recursive: true, force: true });
  };
  try {
    for (const node of nodes) startNode(node, args(node.port));
    for (const node of nodes) await until(`redis ${node.port}`, () => ping(node.port));
    await run('redis-cli', [
      '--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', String(replicasEach), '--cluster-yes',
    ]);
    for (const node of nodes) await until(`cluster_state:ok on ${node.port}`, async () => (await clusterInfo(node.port)).includes('cluster_state:ok'));
    if (replicasEach > 0) {
      await until('every replica in sync', async () => {
        const roles = await Promise.all(nodes.map((node) => info(node.port, 'replication')));
        return roles.filter((r) => r.includes('role:slave')).every((r) => r.includes('master_link_status:up'))
          && roles.filter((r) => r.includes('role:slave')).length === masters * replicasEach;
      });
      // Every node's slot map lists each range's replicas too: a client that connects now sees them.
      await until('every node\'s slot map lists the replicas', async () => {
        const maps = await Promise.all(nodes.map(async (node) => {
          const client = probe(node.port);
          try { return await client.cluster('SLOTS') as unknown[][]; } finally { client.disconnect(); }
        }));
        return maps.every((ranges) => ranges.length > 0 && ranges.every((range) => range.length >= 3 + replicasEach));
      });
    }
  } catch (error) {
    await stop();
    throw error;
  }

  const masterPorts = async () => {
    const roles = await Promise.all(nodes.map(async (node) => [node.port, await info(node.port, 'replication').catch(() => '')] as const));
    return roles.filter(([, r]) => r.includes('role:master')).map(([port]) => port);
  };
  const each = async (command: (client: Redis) => Promise<unknown>) => {
    for (const port of await masterPorts()) {
      const client = probe(port);
      try { await command(client); } finally { client.disconnect(); }
    }
  };
  return {
    nodes,
    settings: ports.map((port) => `127.0.0.1:${port}`).join(','),
    masters: masterPorts,
    async commandStats() {
      const totals: Record<string, number> = {};
      await each(async (client) => {
        for (const [, name, calls] of (await client.info('commandstats')).matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) {
          totals[name!] = (totals[name!] ?? 0) + Number(calls);
        }
      });
      return totals;
    },
    resetStats: () => each((client) => client.config('RESETSTAT')),
    async clusterCounter(name) {
      const counts = await Promise.all(nodes.map((node) => clusterInfo(node.port).then(
        (text) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(text)?.[1] ?? 0), () => 0)));
      return counts.reduce((a, b) => a + b, 0);
    },
    async kill(port) { await stopNode(nodes.find((node) => node.port === port)!, 'SIGKILL'); },
    async start(port) {
      const node = nodes.find((n) => n.port === port)!;
      startNode(node, args(port));
      await until(`redis ${port}`, () => ping(port));
    },
    stop,
  };
}

async function clusterInfo(port: number): Promise<string> {
  const client = probe(port);
  try {
    return String(await client.cluster('INFO'));
  } finally {
    client.disconnect();
  }
}
