import { createKey, KeyAdminError, KeyConflictError, revokeKey, rollKey, type CreateKeyRequest } from '../auth/key-admin.js';
import type { AdminAudit } from '../db/admin-audit.js';
import { STATUS } from '../errors.js';
import type { ApiKeyRecord } from '../db/api-key.entity.js';
import type { ApiKeyStore } from '../db/api-keys.js';
import { keyStanding } from '../domain/key-standing.js';
import { limitsOf } from '../domain/plans.js';

/** Who asks, and from where: an operator over HTTP, or the keys command on a machine. */
export interface Actor {
  readonly name: string;
  readonly origin: string;
  readonly requestId?: string;
}

/** A key as operators see it (the keys command's list and the admin API alike): never the key or its hash. */
export function keyView(key: ApiKeyRecord, now = Date.now()) {
  const { perMinute, perDay } = limitsOf(key);
  return {
    id: key.id, prefix: key.prefix, name: key.name, plan: key.plan, perMinute, perDay, scopes: key.scopes ?? 'all', documents: key.documents ?? 'default',
    standing: keyStanding(key, now),
    created: key.createdAt.toISOString(), expires: key.expiresAt?.toISOString() ?? null,
    revoked: key.revokedAt?.toISOString() ?? null, lastUsed: key.lastUsedAt?.toISOString() ?? null,
    deprecatedCalls: key.deprecatedCalls, lastDeprecatedCall: key.lastDeprecatedCallAt?.toISOString() ?? null,
  };
}

/** The code the admin API answers an operator's mistake with: 409 where the key's standing forbids it, else 400. */
export const mistakeCode = (error: KeyAdminError): 'CONFLICT' | 'BAD_REQUEST' => (error instanceof KeyConflictError ? 'CONFLICT' : 'BAD_REQUEST');

/** What became of a call, as the admin API answers it: what the audit log records of the keys command too. */
const outcomeOf = (error: unknown): number => {
  if (error instanceof KeyAdminError) return STATUS[mistakeCode(error)];
  return (error as { extensions?: { status?: number } }).extensions?.status ?? 500;
};

/**
 * Making, listing, showing, revoking and rolling keys, and reading the audit log, each call recorded in
 * it (who, what, when, from where, and how it ended): the one implementation behind the admin API and
 * the keys command. Null means no such key.
 */
export function keyAdministration(keys: ApiKeyStore, audit: AdminAudit, now: () => number = Date.now) {
  async function audited<T>(actor: Actor, action: string, keyId: number | null, work: () => Promise<T>, done: (result: T) => { status: number; keyId?: number | null }) {
    let result: T;
    try {
      result = await work();
    } catch (error) {
      await audit.record({ actor: actor.name, action, keyId, origin: actor.origin, requestId: actor.requestId ?? null, outcome: outcomeOf(error) });
      throw error;
    }
    const { status, keyId: found = keyId } = done(result);
    await audit.record({ actor: actor.name, action, keyId: found, origin: actor.origin, requestId: actor.requestId ?? null, outcome: status });
    return result;
  }
  const found = (record: unknown) => ({ status: record ? 200 : 404 });

  return {
    create: (actor: Actor, request: CreateKeyRequest) => audited(actor, 'key.create', null, () => createKey(keys, request), ({ record }) => ({ status: 201, keyId: record.id })),
    list: (actor: Actor) => audited(actor, 'key.list', null, () => keys.list(), () => ({ status: 200 })),
    show: (actor: Actor, id: number) => audited(actor, 'key.show', id, () => keys.findById(id), found),
    usage: (actor: Actor, id: number) => audited(actor, 'key.usage', id, () => keys.findById(id), found),
    /** The key now, and whether it was revoked before this call. */
    revoke: (actor: Actor, idOrKey: string) => audited(actor, 'key.revoke', /^\d+$/.test(idOrKey) ? Number(idOrKey) : null, async () => {
      const before = await revokeKey(keys, idOrKey);
      return before && { record: (await keys.findById(before.id)) ?? before, alreadyRevoked: before.revokedAt !== null };
    }, (revoked) => ({ status: revoked ? 200 : 404, keyId: revoked?.record.id ?? null })),
    roll: (actor: Actor, idOrKey: string, overlapMs: number) => audited(actor, 'key.roll', /^\d+$/.test(idOrKey) ? Number(idOrKey) : null,
      () => rollKey(keys, idOrKey, overlapMs, now()), (rolled) => ({ status: rolled ? 201 : 404, keyId: rolled?.old.id ?? null })),
    auditPage: (actor: Actor, page: { before?: number; limit: number }) => audited(actor, 'audit.list', null, () => audit.page(page), () => ({ status: 200 })),
  };
}

export type KeyAdministration = ReturnType<typeof keyAdministration>;
