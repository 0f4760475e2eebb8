import type { RedisClient } from '../redis/clients.js';
import type { Deadline } from '../redis/deadline.js';
import type { DataSource } from 'typeorm';
import { prepared } from '../db/prepared.js';

/** A stored first response: what a retry with the same key and body gets again. */
export interface StoredResponse {
  readonly status: number;
  readonly body: string;
  readonly headers: Record<string, string>;
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
}

/** How long a response is kept for retries. */
export const KEEP_SECONDS = 24 * 60 * 60;
/** How long a claim lasts without completing: an instance that dies mid-request frees its keys this fast. */
export const RUNNING_SECONDS = 60;

interface Entry { fingerprint: string; response?: StoredResponse }

/** Each call bounded by `bound`: past it the request is answered 503, as when Redis is away. */
export function redisRecords(redis: RedisClient, prefix: string, bound: Deadline = (call) => call): IdempotencyRecords {
  const key = (id: string) => `${prefix}:idempotency:${id}`;
  return {
    async claim(id, fingerprint) {
      const set = await bound(redis.set(key(id), JSON.stringify({ fingerprint } satisfies Entry), 'EX', RUNNING_SECONDS, 'NX'));
      if (set === 'OK') return { claimed: true };
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
  };
}

export function databaseRecords(dataSource: DataSource, now: () => number): IdempotencyRecords {
  const sql = prepared(dataSource);
  return {
    async claim(id, fingerprint) {
      await sql.run('DELETE FROM idempotency_records WHERE id = ? AND expires_at < ?', [id, now()]);
      try {
        await sql.run('INSERT INTO idempotency_records (id, fingerprint, response, expires_at) VALUES (?, ?, NULL, ?)',
          [id, fingerprint, now() + RUNNING_SECONDS * 1000]);
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
  };
}
