import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { freePorts, stopNode, until, type RedisNode as LabProcess } from './redis-cluster.js';

const run = promisify(execFile);

export interface MariadbServerLab {
  /** DATABASE_URL of `database` on this server. */
  url(database: string): string;
  /** One statement as root, its values bound (a prepared statement), optionally in `database`. */
  execute(sql: string, params?: unknown[], database?: string): Promise<any[]>;
  stop(): Promise<void>;
}

/**
 * One MariaDB of the lab's own, on a loopback port and in a data folder of its own, started with
 * `args` (an `--sql-mode=…`, say). `--no-defaults`: the machine's /etc/mysql, and the MariaDB on 3306,
 * are never read or touched; its global settings are the lab's to change.
 */
export async function mariadbServer(args: readonly string[] = []): Promise<MariadbServerLab> {
  const root = await mkdtemp(join(tmpdir(), 'animal-store-lab-mariadb-'));
  const [port] = await freePorts(1);
  const node: LabProcess = { port: port!, dir: join(root, 'data') };
  const execute = async (sql: string, params: unknown[] = [], database?: string) => {
    const connection = await mysql.createConnection({ host: '127.0.0.1', port: node.port, user: 'root', database, connectTimeout: 1_000 });
    try {
      const [rows] = await connection.execute(sql, params as never);
      return rows as any[];
    } finally {
      await connection.end();
    }
  };
  const stop = async () => {
    await stopNode(node);
    await rm(root, { recursive: true, force: true });
  };
  try {
    await run('mariadb-install-db', [
      '--no-defaults', '--user=root', `--datadir=${node.dir}`, '--auth-root-authentication-method=normal', '--skip-test-db',
    ], { cwd: root });
    node.process = spawn('mariadbd', [
      '--no-defaults', '--user=root', `--datadir=${node.dir}`, `--port=${node.port}`, '--bind-address=127.0.0.1',
      `--socket=${join(node.dir, 'mariadb.sock')}`, `--pid-file=${join(node.dir, 'mariadb.pid')}`,
      `--log-error=${join(node.dir, 'error.log')}`, '--innodb-buffer-pool-size=64M', '--performance-schema=off', ...args,
    ], { stdio: 'ignore', cwd: node.dir });
    await until(`mariadb ${node.port}`, async () => (await execute('SELECT 1')).length === 1);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: (database) => `mysql://root@127.0.0.1:${node.port}/${database}`, execute, stop };
}
