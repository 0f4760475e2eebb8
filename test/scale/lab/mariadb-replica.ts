import { execFile, spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { freePorts, stopNode, until, type RedisNode as LabProcess } from './redis-cluster.js';

const run = promisify(execFile);
const DATABASE = 'lab';

export interface MariadbReplicaLab {
  /** DATABASE_URL: the primary. */
  readonly primaryUrl: string;
  /** DATABASE_REPLICA_URLS: the replica. */
  readonly replicaUrl: string;
  /** One statement on the primary or the replica, as root. */
  query(on: 'primary' | 'replica', sql: string, params?: unknown[]): Promise<any[]>;
  /** Stops (or restarts) the replica's SQL thread: it keeps receiving, and falls behind. */
  lag(on: boolean): Promise<void>;
  /** The replica applies each write this many seconds after the primary made it (0: at once). */
  delay(seconds: number): Promise<void>;
  /** Until the replica has applied everything the primary has written. */
  caughtUp(): Promise<void>;
  killReplica(): Promise<void>;
  /** Stops the primary (SIGTERM, a clean shutdown) and starts it again: a short write outage. */
  restartPrimary(): Promise<void>;
  /** Starts the killed replica again: it resumes from its GTID position. */
  startReplica(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A MariaDB primary and one replica on loopback ports of the lab's own, each in its own data folder
 * (one `mariadb-install-db`, copied: both start with the same empty GTID history). `--no-defaults`: the
 * machine's /etc/mysql, and the MariaDB on 3306, are never read or touched.
 */
export async function mariadbReplica(): Promise<MariadbReplicaLab> {
  const root = await mkdtemp(join(tmpdir(), 'animal-store-lab-mariadb-'));
  const [primaryPort, replicaPort] = await freePorts(2);
  const primary: LabProcess = { port: primaryPort!, dir: join(root, 'primary') };
  const replica: LabProcess = { port: replicaPort!, dir: join(root, 'replica') };
  const url = (port: number) => `mysql://root@127.0.0.1:${port}/${DATABASE}`;
  const start = (node: LabProcess, serverId: number, extra: string[]) => {
    node.process = spawn('mariadbd', [
      '--no-defaults', '--user=root', `--datadir=${node.dir}`, `--port=${node.port}`, '--bind-address=127.0.0.1',
      `--socket=${join(node.dir, 'mariadb.sock')}`, `--pid-file=${join(node.dir, 'mariadb.pid')}`,
      `--log-error=${join(node.dir, 'error.log')}`, `--server-id=${serverId}`, '--gtid-domain-id=0',
      `--log-bin=${join(node.dir, 'binlog')}`, '--binlog-format=ROW', '--innodb-buffer-pool-size=64M',
      '--performance-schema=off', ...extra,
    ], { stdio: 'ignore', cwd: node.dir });
  };
  const connect = (port: number, database?: string) =>
    mysql.createConnection({ host: '127.0.0.1', port, user: 'root', database, connectTimeout: 1_000 });
  const query = async (port: number, sql: string, params: unknown[] = [], database?: string) => {
    const connection = await connect(port, database);
    try {
      const [rows] = await connection.query(sql, params);
      return rows as any[];
    } finally {
      await connection.end();
    }
  };
  /** Starts a server and waits until it answers. */
  const started = async (node: LabProcess, serverId: number, extra: string[]) => {
    start(node, serverId, extra);
    await until(`mariadb ${node.port}`, async () => (await query(node.port, 'SELECT 1')).length === 1);
  };
  const startReplicaProcess = () => started(replica, 2, ['--read-only=1']);
  const caughtUp = async () => {
    const [{ position }] = await query(primary.port, 'SELECT @@gtid_binlog_pos AS position');
    await until('the replica caught up', async () => {
      const [{ done }] = await query(replica.port, 'SELECT MASTER_GTID_WAIT(?, 1) AS done', [position]);
      return Number(done) === 0;
    });
  };
  const stop = async () => {
    await Promise.all([primary, replica].map((node) => stopNode(node)));
    await rm(root, { recursive: true, force: true });
  };
  try {
    await run('mariadb-install-db', [
      '--no-defaults', '--user=root', `--datadir=${primary.dir}`, '--auth-root-authentication-method=normal', '--skip-test-db',
    ], { cwd: root });
    await cp(primary.dir, replica.dir, { recursive: true });
    await started(primary, 1, []);
    await startReplicaProcess();
    await query(replica.port,
      `CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = ${primary.port}, MASTER_USER = 'root', MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 1`);
    await query(replica.port, 'START SLAVE');
    await query(primary.port, `CREATE DATABASE ${DATABASE}`);
    await caughtUp();
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    primaryUrl: url(primary.port),
    replicaUrl: url(replica.port),
    query: (on, sql, params) => query(on === 'primary' ? primary.port : replica.port, sql, params, DATABASE),
    lag: async (on) => { await query(replica.port, on ? 'STOP SLAVE SQL_THREAD' : 'START SLAVE SQL_THREAD'); },
    async delay(seconds) {
      await query(replica.port, 'STOP SLAVE');
      await query(replica.port, `CHANGE MASTER TO MASTER_DELAY = ${Number(seconds)}`);
      await query(replica.port, 'START SLAVE');
    },
    caughtUp,
    killReplica: () => stopNode(replica, 'SIGKILL'),
    async restartPrimary() {
      await stopNode(primary);
      await started(primary, 1, []);
    },
    startReplica: startReplicaProcess,
    stop,
  };
}
