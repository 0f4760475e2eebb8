import type { Pool } from 'mysql2';
import type { ReplicaConfig } from '../config.js';
import { log } from '../log.js';
import { MYSQL_CONNECTION, POOL_SIZE } from './data-source.js';
import { within } from './deadline.js';
import { createSessionPool, sessionStatements } from './mysql-session.js';
import { ON_PRIMARY, waitFor, type ReadAfter } from './positions.js';
import type { Row, Statements } from './prepared.js';

/** Where a read went, and why: the metric's labels. */
export type ReadTarget = 'replica' | 'primary';
export type ReadReason =
  /** No recent write by the key: any replica that is not too far behind. */
  | 'any'
  /** The key wrote lately: a replica that has applied that write. */
  | 'caught_up'
  /** The key wrote lately and the replicas did not reach it in time (or are marked behind it). */
  | 'behind'
  /** The key wrote lately and its position is unknown (a server that tracks none, or Redis unsure). */
  | 'recent_write'
  /** No replica takes reads now (down, lagging, not replicating). */
  | 'no_replica'
  /** The replica failed the read: it is skipped for a while, and the primary answered. */
  | 'replica_error';

/** How a replica looks from here, for /readyz and the metrics. */
export interface ReplicaState {
  readonly replica: string;
  readonly status: 'up' | 'lagging' | 'down';
  readonly lagSeconds: number | null;
  readonly problem?: string;
}

export interface Replicas {
  /** Reads `sql` on a replica that may serve it (after `after` when given), else on `primary`. */
  read(primary: Statements, sql: string, params: readonly unknown[], after: ReadAfter | undefined): Promise<Row[]>;
  states(): ReplicaState[];
  /** Hears where each read went and why (the metrics count them). */
  onRead(listener: (target: ReadTarget, reason: ReadReason) => void): void;
  /** Each replica's pool, by name: the metrics gauge them. */
  pools(): ReadonlyMap<string, Pool>;
  /** Reads every replica's state once: the service takes no replica reads before it knows them. */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

/** A replica that failed a read takes none for this long (the next status check may bring it back sooner). */
const DOWN_MS = 5_000;
/** A replica that did not reach a key's write in time is not asked to wait again for this long. */
const BEHIND_MS = 2_000;
/** How often each replica's replication status is read. */
const CHECK_MS = 1_000;

interface Replica {
  readonly name: string;
  readonly pool: Pool;
  lagSeconds: number | null;
  /** Why it takes no reads, from its last status check; undefined: it may. */
  problem: string | undefined;
  downUntil: number;
  behindUntil: number;
  /** `SHOW SLAVE STATUS` on a server that predates `SHOW REPLICA STATUS` (MySQL before 8.0.22). */
  legacy: boolean;
}

const execute = (pool: Pool, sql: string, params: readonly unknown[]) => new Promise<Row[]>((resolve, reject) => {
  pool.execute(sql, params as never, (error, rows) => (error ? reject(error) : resolve(rows as Row[])));
});
const query = (pool: Pool, sql: string) => new Promise<Row[]>((resolve, reject) => {
  pool.query(sql, (error, rows) => (error ? reject(error) : resolve(rows as Row[])));
});

const nameOf = (url: string) => {
  const { hostname, port } = new URL(url);
  return `${hostname}:${port || 3306}`;
};

/**
 * The read replicas of the primary, each with a pool of its own. Reads go round robin to the replicas
 * that may serve them: replicating, at most `maxLagSeconds` behind (read every second), and not failing.
 * A key that wrote lately is served by a replica that has applied its write (waited for up to `waitMs`),
 * or by the primary. Anything else reads the primary: a replica never makes a read fail.
 */
export function createReplicas(config: ReplicaConfig, statementTimeoutSeconds: number): Replicas {
  let observe = (_target: ReadTarget, _reason: ReadReason): void => undefined;
  const session = sessionStatements(statementTimeoutSeconds);
  const replicas: Replica[] = config.urls.map((url) => {
    const pool = createSessionPool({ uri: url, ...MYSQL_CONNECTION, stringifyObjects: true, connectionLimit: POOL_SIZE }, session);
    // A replica's idle connection that dies must not take the process with it: the next read finds out.
    pool.on('connection', (connection) => connection.on('error', () => undefined));
    return { name: nameOf(url), pool, lagSeconds: null, problem: 'not checked yet', downUntil: 0, behindUntil: 0, legacy: false };
  });
  const waitSeconds = config.waitMs / 1000;
  let next = 0;

  /** The next replica in turn that may take a read now; `waiting`: one that is not marked behind either. */
  const pick = (now: number, waiting: boolean): Replica | undefined => {
    for (let i = 0; i < replicas.length; i++) {
      const replica = replicas[(next + i) % replicas.length]!;
      if (replica.problem !== undefined || replica.downUntil > now || (waiting && replica.behindUntil > now)) continue;
      next = (next + i + 1) % replicas.length;
      return replica;
    }
    return undefined;
  };

  const onPrimary = (primary: Statements, sql: string, params: readonly unknown[], reason: ReadReason) => {
    observe('primary', reason);
    return primary.all(sql, params);
  };

  const failed = (replica: Replica, error: unknown) => {
    if (replica.downUntil <= Date.now()) {
      log.warn({ replica: replica.name, err: error }, 'read replica failed a read: its reads go to the primary for a while');
    }
    replica.downUntil = Date.now() + DOWN_MS;
  };

  async function check(replica: Replica): Promise<void> {
    const before = replica.problem;
    try {
      const [status] = await within(query(replica.pool, replica.legacy ? 'SHOW SLAVE STATUS' : 'SHOW REPLICA STATUS'), CHECK_MS);
      const running = (name: string) => status?.[`Slave_${name}_Running`] ?? status?.[`Replica_${name}_Running`];
      const lag = status?.Seconds_Behind_Master ?? status?.Seconds_Behind_Source;
      replica.lagSeconds = lag === null || lag === undefined ? null : Number(lag);
      if (!status) replica.problem = 'not a replica: SHOW REPLICA STATUS is empty';
      else if (running('IO') !== 'Yes' || running('SQL') !== 'Yes') replica.problem = 'replication is not running';
      else if (replica.lagSeconds === null) replica.problem = 'its lag is unknown';
      else if (replica.lagSeconds > config.maxLagSeconds) replica.problem = `lagging ${replica.lagSeconds} s (REPLICA_MAX_LAG_SECONDS is ${config.maxLagSeconds})`;
      else replica.problem = undefined;
    } catch (error) {
      if ((error as { errno?: number }).errno === 1064 && !replica.legacy) {
        replica.legacy = true;
        return check(replica);
      }
      replica.lagSeconds = null;
      replica.problem = `down: ${(error as Error).message}`;
    }
    if (replica.problem !== before) {
      if (replica.problem === undefined) log.info({ replica: replica.name, lagSeconds: replica.lagSeconds }, 'read replica takes reads');
      else log.warn({ replica: replica.name, problem: replica.problem }, 'read replica takes no reads');
    }
  }

  const refresh = async () => { await Promise.all(replicas.map(check)); };
  const timer = setInterval(() => { void refresh(); }, CHECK_MS);
  timer.unref();

  return {
    async read(primary, sql, params, after) {
      if (after === ON_PRIMARY) return onPrimary(primary, sql, params, 'recent_write');
      const now = Date.now();
      const replica = pick(now, after !== undefined);
      if (!replica) return onPrimary(primary, sql, params, after === undefined ? 'no_replica' : 'behind');
      try {
        if (after !== undefined) {
          const wait = waitFor(after);
          const [answer] = await execute(replica.pool, wait.sql, [after, waitSeconds]);
          if (!wait.reached(answer)) {
            replica.behindUntil = Date.now() + BEHIND_MS;
            return await onPrimary(primary, sql, params, 'behind');
          }
        }
        const rows = await execute(replica.pool, sql, params);
        observe('replica', after === undefined ? 'any' : 'caught_up');
        return rows;
      } catch (error) {
        failed(replica, error);
        return onPrimary(primary, sql, params, 'replica_error');
      }
    },
    states: () => replicas.map((replica) => {
      const down = replica.problem?.startsWith('down') || replica.downUntil > Date.now();
      const status = down ? 'down' : replica.problem === undefined ? 'up' : 'lagging';
      return { replica: replica.name, status, lagSeconds: replica.lagSeconds, ...(replica.problem ? { problem: replica.problem } : {}) };
    }),
    onRead(listener) { observe = listener; },
    pools: () => new Map(replicas.map((replica) => [replica.name, replica.pool])),
    refresh,
    async close() {
      clearInterval(timer);
      await Promise.all(replicas.map((replica) => new Promise<void>((resolve) => { replica.pool.end(() => resolve()); })));
    },
  };
}
