import type { ApiKeyRecord } from '../db/api-key.entity.js';
import type { ApiKeyStore } from '../db/api-keys.js';
import { keyStanding } from '../domain/key-standing.js';
import { isPlan, PLAN_NAMES, PLANS } from '../domain/plans.js';
import { DOCUMENT_MODES, isDocumentMode } from '../settings/declarations.js';
import { isScope, scopeNames, SCOPES, scopesText, type Scope } from '../domain/scopes.js';
import { displayPrefix, generateKey, hashKey, looksLikeKey } from './keys.js';

/** A mistake in what the operator asked for: shown as it is, exit code 2. */
export class KeyAdminError extends Error {
  override name = 'KeyAdminError';
}

/** Asked of a key whose standing forbids it (rolling a revoked or expired key): a 409 over HTTP. */
export class KeyConflictError extends KeyAdminError {
  override name = 'KeyConflictError';
}

const MAX_LIMIT = 2_147_483_647;

export interface CreateKeyRequest {
  plan: string;
  perMinute?: number;
  perDay?: number;
  name?: string;
  /** When the key stops working; never, by default. */
  expiresAt?: Date;
  /** What it may call (`pets:read,orders:read`, or space-separated); every scope when left out. */
  scopes?: string;
  /** Which GraphQL documents it may send (`any`, `registered`); as GRAPHQL_DOCUMENTS says when left out. */
  documents?: string;
}

/** An operator's list of scopes: each known, at least one (leaving the flag out gives every scope). */
export function checkScopes(text: string): string {
  const names = scopeNames(text);
  if (names.length === 0) throw new KeyAdminError(`--scopes needs at least one of ${SCOPES.join(', ')}; leave it out for a key that may do everything`);
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0) throw new KeyAdminError(`Unknown scope ${unknown.map((name) => `"${name}"`).join(', ')}: use ${SCOPES.join(', ')}`);
  return scopesText(new Set(names as Scope[]));
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90d`, `24h`, `30m`, `45s` (or `0`): a duration in milliseconds. */
export function parseDuration(flag: string, raw: string): number {
  const match = /^(\d{1,7})([smhd])?$/.exec(raw.trim());
  if (!match || (!match[2] && match[1] !== '0')) throw new KeyAdminError(`${flag} must be a duration such as 90d, 24h, 30m or 45s, got "${raw}"`);
  return Number(match[1]) * (match[2] ? UNITS[match[2]]! : 0);
}

/** An RFC 3339 date-time in the future. */
export function parseInstant(flag: string, raw: string, now = Date.now()): Date {
  const at = new Date(raw);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(raw) || Number.isNaN(at.getTime())) throw new KeyAdminError(`${flag} must be a date-time such as 2027-03-01T00:00:00Z, got "${raw}"`);
  if (at.getTime() <= now) throw new KeyAdminError(`${flag} must be in the future`);
  return at;
}

/** Makes a key: the raw key is returned this once and stored only as its hash. */
export async function createKey(store: ApiKeyStore, request: CreateKeyRequest): Promise<{ key: string; record: ApiKeyRecord }> {
  const { plan, perMinute, perDay, name, expiresAt = null } = request;
  const scopes = request.scopes === undefined ? null : checkScopes(request.scopes);
  const { documents } = request;
  if (documents !== undefined && !isDocumentMode(documents)) {
    throw new KeyAdminError(`--documents must be ${DOCUMENT_MODES.join(' or ')}, got "${documents}"`);
  }
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
    perMinute: plan === 'enterprise' ? perMinute! : null, perDay: plan === 'enterprise' ? perDay! : null, expiresAt, scopes, documents: documents ?? null,
  });
  return { key, record };
}

/**
 * Rolls a key: a new one with the same plan, limits, name, scopes and documents; the old one stops working when the
 * overlap ends (at once with an overlap of 0), or sooner if it expires sooner.
 */
export async function rollKey(store: ApiKeyStore, idOrKey: string, overlapMs: number, now = Date.now()) {
  const old = await findKey(store, idOrKey);
  if (!old) return null;
  const standing = keyStanding(old, now);
  if (standing !== 'open') throw new KeyConflictError(`Key ${old.id} ${standing === 'revoked' ? 'is revoked' : 'has expired'}: make a new one with create`);
  const made = await createKey(store, {
    plan: old.plan, name: old.name ?? undefined,
    ...(old.plan === 'enterprise' ? { perMinute: old.perMinute!, perDay: old.perDay! } : {}),
    ...(old.expiresAt ? { expiresAt: old.expiresAt } : {}),
    ...(old.scopes !== null ? { scopes: old.scopes } : {}),
    ...(old.documents !== null ? { documents: old.documents } : {}),
  });
  // Whole seconds, as DATETIME keeps them: rounded up, so an overlap is never shorter than asked.
  const ends = new Date(Math.ceil((now + overlapMs) / 1000) * 1000);
  await store.expire(old.id, ends);
  // Its webhooks follow it to the new key at once: they go on whatever becomes of the old one.
  await store.handOver(old.id, made.record.id);
  return { ...made, old, oldEndsAt: old.expiresAt && old.expiresAt < ends ? old.expiresAt : ends };
}

async function findKey(store: ApiKeyStore, idOrKey: string): Promise<ApiKeyRecord | null> {
  if (/^\d+$/.test(idOrKey)) return store.findById(Number(idOrKey));
  if (looksLikeKey(idOrKey)) return store.findByHash(hashKey(idOrKey));
  throw new KeyAdminError('Give the key\'s id (see `keys list`) or the key itself');
}

/** Revokes by id or by the raw key; returns the key as it was, or null when there is no such key. */
export async function revokeKey(store: ApiKeyStore, idOrKey: string): Promise<ApiKeyRecord | null> {
  const record = await findKey(store, idOrKey);
  if (record) await store.revoke(record.id);
  return record;
}
