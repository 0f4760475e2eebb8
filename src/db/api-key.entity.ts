import { EntitySchema, type ValueTransformer } from 'typeorm';
import type { Plan } from '../domain/plans.js';

/** MySQL drivers hand BIGINT back as strings; every id we store is a safe integer, so a number is exact. */
const bigintAsNumber: ValueTransformer = {
  to: (value: number | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};

export interface ApiKeyRecord {
  id: number;
  /** SHA-256 of the key, hex. */
  hash: string;
  /** The first characters of the key, safe to show. */
  prefix: string;
  name: string | null;
  plan: Plan;
  /** Enterprise only: the key's own limits. */
  perMinute: number | null;
  perDay: number | null;
  createdAt: Date;
  revokedAt: Date | null;
  /** When it stops working (set at creation, or by a roll's overlap). */
  expiresAt: Date | null;
  /** Written at most once a minute, off the request's path. */
  lastUsedAt: Date | null;
  /** What it may call, space-separated (domain/scopes.ts); null: everything. */
  scopes: string | null;
  /** Which GraphQL documents it may send: `any`, `registered` (the trusted manifest's only); null: as GRAPHQL_DOCUMENTS says. */
  documents: string | null;
  /** Its calls of deprecated fields (REST or GraphQL), written in batches off the request's path. */
  deprecatedCalls: number;
  lastDeprecatedCallAt: Date | null;
}

export const ApiKeyEntity = new EntitySchema<ApiKeyRecord>({
  name: 'ApiKey',
  tableName: 'api_keys',
  columns: {
    id: { type: 'bigint', primary: true, generated: 'increment', transformer: bigintAsNumber },
    hash: { type: 'varchar', length: 64 },
    prefix: { type: 'varchar', length: 16 },
    name: { type: 'varchar', length: 255, nullable: true },
    plan: { type: 'varchar', length: 16 },
    perMinute: { name: 'per_minute', type: 'int', nullable: true },
    perDay: { name: 'per_day', type: 'int', nullable: true },
    createdAt: { name: 'created_at', type: 'datetime' },
    revokedAt: { name: 'revoked_at', type: 'datetime', nullable: true },
    expiresAt: { name: 'expires_at', type: 'datetime', nullable: true },
    lastUsedAt: { name: 'last_used_at', type: 'datetime', nullable: true },
    scopes: { type: 'varchar', length: 255, nullable: true },
    documents: { type: 'varchar', length: 16, nullable: true },
    deprecatedCalls: { name: 'deprecated_calls', type: 'bigint', default: 0, transformer: bigintAsNumber },
    lastDeprecatedCallAt: { name: 'last_deprecated_call_at', type: 'datetime', nullable: true },
  },
});
