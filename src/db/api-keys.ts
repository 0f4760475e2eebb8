import type { DataSource } from 'typeorm';
import { ApiKeyEntity, type ApiKeyRecord } from './api-key.entity.js';
import { bounded } from './deadline.js';

export type NewApiKey = Omit<ApiKeyRecord, 'id' | 'createdAt' | 'revokedAt'>;

/** Every query about API keys. */
export interface ApiKeyStore {
  create(key: NewApiKey): Promise<ApiKeyRecord>;
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  findById(id: number): Promise<ApiKeyRecord | null>;
  /** Marks the key revoked (once: a second revoke keeps the first date). */
  revoke(id: number): Promise<void>;
  list(): Promise<ApiKeyRecord[]>;
}

export function apiKeyStore(dataSource: DataSource): ApiKeyStore {
  const keys = dataSource.getRepository(ApiKeyEntity);
  return {
    async create(key) {
      // Whole seconds: MySQL's DATETIME keeps no more, so what we return is what a later read gives.
      const createdAt = new Date(Math.floor(Date.now() / 1000) * 1000);
      const { identifiers } = await bounded(dataSource, () => keys.insert({ ...key, createdAt, revokedAt: null }));
      return { ...key, id: Number(identifiers[0]?.id), createdAt, revokedAt: null };
    },
    findByHash: (hash) => bounded(dataSource, () => keys.findOneBy({ hash })),
    findById: (id) => bounded(dataSource, () => keys.findOneBy({ id })),
    async revoke(id) {
      await bounded(dataSource, () => keys.createQueryBuilder().update().set({ revokedAt: new Date() })
        .where('id = :id AND revoked_at IS NULL', { id }).execute());
    },
    list: () => bounded(dataSource, () => keys.find({ order: { id: 'ASC' } })),
  };
}
