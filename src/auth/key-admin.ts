import type { ApiKeyRecord } from '../db/api-key.entity.js';
import type { ApiKeyStore } from '../db/api-keys.js';
import { isPlan, PLAN_NAMES, PLANS } from '../limits/plans.js';
import { displayPrefix, generateKey, hashKey, looksLikeKey } from './keys.js';

/** A mistake in what the operator asked for: shown as it is, exit code 2. */
export class KeyAdminError extends Error {
  override name = 'KeyAdminError';
}

const MAX_LIMIT = 2_147_483_647;

export interface CreateKeyRequest {
  plan: string;
  perMinute?: number;
  perDay?: number;
  name?: string;
}

/** Makes a key: the raw key is returned this once and stored only as its hash. */
export async function createKey(store: ApiKeyStore, request: CreateKeyRequest): Promise<{ key: string; record: ApiKeyRecord }> {
  const { plan, perMinute, perDay, name } = request;
  if (!isPlan(plan)) throw new KeyAdminError(`Unknown plan "${plan}": use one of ${PLAN_NAMES.join(', ')}`);
  const custom = perMinute !== undefined || perDay !== undefined;
  if (plan === 'enterprise') {
    if (perMinute === undefined || perDay === undefined) {
      throw new KeyAdminError('The enterprise plan needs its own limits: --per-minute N --per-day N');
    }
    for (const [flag, value] of [['--per-minute', perMinute], ['--per-day', perDay]] as const) {
      if (!Number.isInteger(value) || value < 1 || value > MAX_LIMIT) throw new KeyAdminError(`${flag} must be a whole number from 1 to ${MAX_LIMIT}`);
    }
  } else if (custom) {
    const { perMinute: m, perDay: d } = PLANS[plan];
    throw new KeyAdminError(`The ${plan} plan has fixed limits (${m}/minute, ${d}/day); custom limits are for the enterprise plan`);
  }
  if (name !== undefined && (name.length === 0 || [...name].length > 255)) throw new KeyAdminError('--name must be 1 to 255 characters');

  const key = generateKey();
  const record = await store.create({
    hash: hashKey(key), prefix: displayPrefix(key), name: name ?? null, plan,
    perMinute: plan === 'enterprise' ? perMinute! : null, perDay: plan === 'enterprise' ? perDay! : null,
  });
  return { key, record };
}

/** Revokes by id or by the raw key; returns the key as it was, or null when there is no such key. */
export async function revokeKey(store: ApiKeyStore, idOrKey: string): Promise<ApiKeyRecord | null> {
  let record: ApiKeyRecord | null;
  if (/^\d+$/.test(idOrKey)) record = await store.findById(Number(idOrKey));
  else if (looksLikeKey(idOrKey)) record = await store.findByHash(hashKey(idOrKey));
  else throw new KeyAdminError('Give the key\'s id (see `keys list`) or the key itself');
  if (record) await store.revoke(record.id);
  return record;
}
