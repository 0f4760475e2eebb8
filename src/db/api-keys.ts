import type { DataSource } from 'typeorm';
import { ApiKeyEntity, type ApiKeyRecord } from './api-key.entity.js';
import { bounded } from './deadline.js';

export type NewApiKey = Omit<ApiKeyRecord, 'id' | 'createdAt' | 'revokedAt' | 'lastUsedAt' | 'deprecatedCalls' | 'lastDeprecatedCallAt'>;

/** Every query about API keys. */
export interface ApiKeyStore {
  create(key: NewApiKey): Promise<ApiKeyRecord>;
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  findById(id: number): Promise<ApiKeyRecord | null>;
  /** Marks the key revoked (once: a second revoke keeps the first date). */
  revoke(id: number): Promise<void>;
  list(): Promise<ApiKeyRecord[]>;
  /** Ends the key at `at`, unless it ends sooner already. */
  expire(id: number, at: Date): Promise<void>;
  /** Records a use at `at`, unless one was recorded within the minute before (any instance's). */
  touch(id: number, at: Date): Promise<void>;
  /** What a key owns (its webhook endpoints) goes to the key that succeeds it. */
  handOver(fromId: number, toId: number): Promise<void>;
  /** Adds calls of deprecated fields to a key's count; the last call's time only moves forward. */
  addDeprecatedCalls(id: number, calls: number, lastAt: Date): Promise<void>;
}

export function apiKeyStore(dataSource: DataSource): ApiKeyStore {
  const keys = dataSource.getRepository(ApiKeyEntity);
  return {
    async create(key) {
      // Whole seconds: MySQL's DATETIME keeps no more, so what we return is what a later read gives.
      const createdAt = new Date(Math.floor(Date.now() / 1000) * 1000);
      const unused = { revokedAt: null, lastUsedAt: null, deprecatedCalls: 0, lastDeprecatedCallAt: null };
      const { identifiers } = await bounded(dataSource, () => keys.insert({ ...key, createdAt, ...unused }));
      return { ...key, id: Number(identifiers[0]?.id), createdAt, ...unused };
    },
    findByHash: (hash) => bounded(dataSource, () => keys.findOneBy({ hash })),
    findById: (id) => bounded(dataSource, () => keys.findOneBy({ id })),
    async revoke(id) {
      await bounded(dataSource, () => keys.createQueryBuilder().update().set({ revokedAt: new Date() })
        .where('id = :id AND revoked_at IS NULL', { id }).execute());
    },
    list: () => bounded(dataSource, () => keys.find({ order: { id: 'ASC' } })),
    async expire(id, at) {
      await bounded(dataSource, () => keys.createQueryBuilder().update().set({ expiresAt: at })
        .where('id = :id AND (expires_at IS NULL OR expires_at > :at)', { id, at }).execute());
    },
    async touch(id, at) {
      const minuteBefore = new Date(at.getTime() - 60_000);
      await bounded(dataSource, () => keys.createQueryBuilder().update().set({ lastUsedAt: at })
        .where('id = :id AND (last_used_at IS NULL OR last_used_at <= :minuteBefore)', { id, minuteBefore }).execute());
    },
    async handOver(fromId, toId) {
      await bounded(dataSource, () => dataSource.query('UPDATE webhook_endpoints SET key_id = ? WHERE key_id = ?', [toId, fromId]));
    },
    async addDeprecatedCalls(id, calls, lastAt) {
      // CASE, not GREATEST: SQLite has no GREATEST, and a NULL would win MySQL's.
      await bounded(dataSource, () => keys.createQueryBuilder().update()
        .set({
          deprecatedCalls: () => 'deprecated_calls + :calls',
          lastDeprecatedCallAt: () => 'CASE WHEN last_deprecated_call_at IS NULL OR last_deprecated_call_at < :lastAt THEN :lastAt ELSE last_deprecated_call_at END',
        })
        .where('id = :id', { id, calls, lastAt }).execute());
    },
  };
}
