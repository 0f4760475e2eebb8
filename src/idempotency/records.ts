import type { RedisClient } from '../redis/clients.js';
import type { Deadline, FallbackReport } from '../redis/deadline.js';
import type { DataSource } from 'typeorm';
import { prepared } from '../db/prepared.js';
import type { Withheld } from './withheld.js';

/** A stored first response: what a retry with the same key and body gets again. */
export interface StoredResponse {
  readonly status: number;
  readonly body: string;
  readonly headers: Record<string, string>;
  /** The secrets the body showed, cut out of it: a secret is kept only in its home, never in a record. */
  readonly withheld?: readonly Withheld[];
}

export type Claim =
  | { readonly claimed: true }
  | { readonly claimed: false; readonly fingerprint: string; readonly response?: StoredResponse };

/**
 * Idempotency records, shared by every instance: in Redis when there is one, else in the database. A
 * record is claimed (running) before the request runs, completed with its response, or released when
 * it failed, so a failed request can be retried.
 */
export interface IdempotencyRecords {
  claim(id: string, fingerprint: string): Promise<Claim>;
  complete(id: string, fingerprint: string, response: StoredResponse): Promise<void>;
  release(id: string): Promise<void>;
  /** The claim lasts `runningSeconds` more, while it is still running (a kept response is left as it is). */
  renew(id: string): Promise<void>;
  /** How long a claim lasts unless renewed. */
  readonly runningSeconds: number;
}

/** How long a response is kept for retries. */
export const KEEP_SECONDS = 24 * 60 * 60;
/**
 * How long a claim lasts unless its request renews it (a third of this apart): an instance that dies
 * mid-request frees its keys this fast. A retry that comes in after that while the first try still
 * writes waits on the write's fence (db/fence.ts) and never writes twice.
 */
export const RUNNING_SECONDS = 10;

interface Entry { fingerprint: string; response?: StoredResponse }

/** How long a claim waits for a replica to have it: far above a replica's usual 0.1-2 ms. */
export const REPLICA_ACK_MS = 50;
/** After a claim no replica acknowledged in time, claims do not wait for this long (the replica may be gone). */
const UNACKED_PAUSE_MS = 5_000;

/** Where claims are made durable past a failover: the topology's replicas, and who hears when they are not. */
export interface ClaimReplication {
  hasReplicas(): boolean;
  readonly report: FallbackReport;
}

/**
 * Each call bounded by `bound`: past it the request is answered 503, as when Redis is away. With
 * `replication`, a claim is acknowledged by a replica (`WAIT 1`, in the claim's round trip) before the
 * request runs: a failover right after it cannot lose the claim and let a retry run the request twice.
 */
export function redisRecords(
  redis: RedisClient, prefix: string, bound: Deadline = (call) => call, replication?: ClaimReplication, runningSeconds = RUNNING_SECONDS,
): IdempotencyRecords {
  const key = (id: string) => `${prefix}:idempotency:${id}`;
  let pausedUntil = 0;
  const set = async (id: string, value: string): Promise<boolean> => {
    if (!replication?.hasReplicas() || Date.now() < pausedUntil) {
      return await bound(redis.set(key(id), value, 'EX', runningSeconds, 'NX')) === 'OK';
    }
    // One round trip: on a Cluster the pipeline goes to the claim's master, whose replicas WAIT counts.
    const [claimed, waited] = (await bound(redis.pipeline().set(key(id), value, 'EX', runningSeconds, 'NX').wait(1, REPLICA_ACK_MS).exec()))!;
    const [setError, done] = claimed!;
    if (setError) throw setError;
    const acked = waited?.[1];
    if (done === 'OK') {
      if (acked === 1) replication.report.succeeded('claim_replication');
      else {
        pausedUntil = Date.now() + UNACKED_PAUSE_MS;
        replication.report.failed('claim_replication', new Error(`no replica acknowledged an idempotency claim within ${REPLICA_ACK_MS} ms`));
      }
    }
    return done === 'OK';
  };
  return {
    async claim(id, fingerprint) {
      if (await set(id, JSON.stringify({ fingerprint } satisfies Entry))) return { claimed: true };
      const found = await bound(redis.get(key(id)));
      // Gone between the two calls (released or expired): claim again.
      if (!found) return this.claim(id, fingerprint);
      const record = JSON.parse(found) as Entry;
      return { claimed: false, fingerprint: record.fingerprint, response: record.response };
    },
    async complete(id, fingerprint, response) {
      await bound(redis.set(key(id), JSON.stringify({ fingerprint, response } satisfies Entry), 'EX', KEEP_SECONDS));
    },
    async release(id) {
      await bound(redis.del(key(id)));
    },
    async renew(id) {
      // Only a running claim: its TTL is at most the claim's, a kept response's is a day.
      await bound(redis.eval(RENEW, 1, key(id), runningSeconds));
    },
    runningSeconds,
  };
}

const RENEW = "if redis.call('TTL', KEYS[1]) <= tonumber(ARGV[1]) then return redis.call('EXPIRE', KEYS[1], ARGV[1]) end return 0";

export function databaseRecords(dataSource: DataSource, now: () => number, runningSeconds = RUNNING_SECONDS): IdempotencyRecords {
  const sql = prepared(dataSource);
  return {
    async claim(id, fingerprint) {
      await sql.run('DELETE FROM idempotency_records WHERE id = ? AND expires_at < ?', [id, now()]);
      try {
        await sql.run('INSERT INTO idempotency_records (id, fingerprint, response, expires_at) VALUES (?, ?, NULL, ?)',
          [id, fingerprint, now() + runningSeconds * 1000]);
        return { claimed: true };
      } catch (error) {
        const { code, errno } = error as { code?: string; errno?: number };
        if (errno !== 1062 && !String(code).startsWith('SQLITE_CONSTRAINT')) throw error;
      }
      const [row] = await sql.all('SELECT fingerprint, response FROM idempotency_records WHERE id = ?', [id]);
      if (!row) return this.claim(id, fingerprint);
      return {
        claimed: false,
        fingerprint: String(row.fingerprint),
        response: row.response ? JSON.parse(String(row.response)) as StoredResponse : undefined,
      };
    },
    async complete(id, fingerprint, response) {
      await sql.run('UPDATE idempotency_records SET fingerprint = ?, response = ?, expires_at = ? WHERE id = ?',
        [fingerprint, JSON.stringify(response), now() + KEEP_SECONDS * 1000, id]);
    },
    async release(id) {
      await sql.run('DELETE FROM idempotency_records WHERE id = ?', [id]);
    },
    async renew(id) {
      await sql.run('UPDATE idempotency_records SET expires_at = ? WHERE id = ? AND response IS NULL', [now() + runningSeconds * 1000, id]);
    },
    runningSeconds,
  };
}
