import { KeyAdminError, parseDuration, parseInstant, type CreateKeyRequest } from '../auth/key-admin.js';
import { appError } from '../errors.js';
import type { Endpoint, ServerContext } from '../pipeline/context.js';
import { errorBodies } from '../pipeline/error-response.js';
import { Response } from '../pipeline/response.js';
import type { SurfaceRoutes } from '../pipeline/routing.js';
import { keyView, mistakeCode, type Actor, type KeyAdministration } from './key-administration.js';

export const ADMIN_BASE = '/admin';
const JSON_BODY = ['application/json'];
/** The most audit entries a page holds, and how many by default. */
const MAX_PAGE = 100;
const DEFAULT_PAGE = 50;
/** How long a rolled key goes on working beside its successor, unless the call says. */
const DEFAULT_OVERLAP_SECONDS = 86_400;
const MAX_OVERLAP_SECONDS = 90 * 86_400;

declare module '../pipeline/context.js' {
  interface ServerContext {
    /** The operator's name, from their token (useOperator). */
    operator?: string;
  }
}

const actorOf = ({ operator, address, requestId }: ServerContext): Actor => ({ name: operator!, origin: address ?? 'unknown', ...(requestId ? { requestId } : {}) });

/** An operator's mistake in a key's fields: 400 (409 when the key's standing forbids it), the message as the keys command prints it. */
const asked = <T>(work: () => Promise<T>): Promise<T> => work().catch((error: unknown) => {
  if (error instanceof KeyAdminError) throw appError(mistakeCode(error), error.message.replaceAll('--', ''));
  throw error;
});

function keyIdOf({ pathParams }: ServerContext): string {
  const id = pathParams?.keyId ?? '';
  if (!/^[1-9]\d{0,15}$/.test(id)) throw appError('BAD_REQUEST', `keyId must be a key's id, a positive integer; got ${JSON.stringify(id.slice(0, 20))}`);
  return id;
}

/** The body's fields, each of the expected type; any other field is refused, not ignored. */
function fields(body: unknown, types: Record<string, 'string' | 'integer'>): Record<string, string | number | undefined> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw appError('BAD_REQUEST', 'The body must be a JSON object');
  const unknown = Object.keys(body).filter((name) => !(name in types));
  if (unknown.length > 0) throw appError('BAD_REQUEST', `Unknown field ${unknown.slice(0, 5).map((name) => JSON.stringify(name.slice(0, 40))).join(', ')}: the fields are ${Object.keys(types).join(', ')}`);
  const out: Record<string, string | number | undefined> = {};
  for (const [name, type] of Object.entries(types)) {
    const value = (body as Record<string, unknown>)[name];
    if (value === undefined || value === null) continue;
    if (type === 'string' ? typeof value !== 'string' : !Number.isSafeInteger(value)) {
      throw appError('BAD_REQUEST', `${name} must be ${type === 'string' ? 'a string' : 'a whole number'}`);
    }
    out[name] = value as string | number;
  }
  return out;
}

const notFound = (id: string) => appError('NOT_FOUND', `No key ${id}`);

/** The query's parameters, when each is one of `names` and given once; any other is refused, not ignored. */
function onlyParameters({ search }: ServerContext, names: readonly string[]): URLSearchParams {
  const query = new URLSearchParams(search);
  for (const name of new Set(query.keys())) {
    if (!names.includes(name)) throw appError('BAD_REQUEST', `Unknown parameter ${JSON.stringify(name.slice(0, 40))}${names.length ? `: use ${names.join(', ')}` : ': this takes none'}`);
    if (query.getAll(name).length > 1) throw appError('BAD_REQUEST', `${name} is given more than once`);
  }
  return query;
}

/**
 * The admin API's routes (schema/admin-openapi.json describes them): keys made, listed, shown, revoked and
 * rolled, a key's usage, and the audit log, each call through the one KeyAdministration (the keys
 * command's too), so each is in the audit log.
 */
export function adminRoutes(admin: KeyAdministration, now: () => number = Date.now): SurfaceRoutes {
  const create: Endpoint = {
    body: JSON_BODY,
    async handle(_request, serverContext) {
      const given = fields(serverContext.body, {
        plan: 'string', name: 'string', perMinute: 'integer', perDay: 'integer', scopes: 'string', documents: 'string', expiresAt: 'string', expiresIn: 'string',
      });
      if (given.plan === undefined) throw appError('BAD_REQUEST', 'plan is required: free, pro or enterprise');
      if (given.expiresAt !== undefined && given.expiresIn !== undefined) throw appError('BAD_REQUEST', 'Give expiresAt or expiresIn, not both');
      const { key, record } = await asked(async () => {
        const lifetime = given.expiresIn === undefined ? undefined : parseDuration('expiresIn', given.expiresIn as string);
        if (lifetime === 0) throw new KeyAdminError('expiresIn must be longer than 0');
        const expiresAt = lifetime !== undefined ? new Date(Math.ceil((now() + lifetime) / 1000) * 1000)
          : given.expiresAt !== undefined ? parseInstant('expiresAt', given.expiresAt as string, now()) : undefined;
        const request: CreateKeyRequest = {
          plan: given.plan as string, name: given.name as string | undefined, perMinute: given.perMinute as number | undefined, perDay: given.perDay as number | undefined,
          scopes: given.scopes as string | undefined, documents: given.documents as string | undefined, ...(expiresAt ? { expiresAt } : {}),
        };
        return admin.create(actorOf(serverContext), request);
      });
      return Response.json({ key, record: keyView(record, now()) }, { status: 201, headers: { Location: `${ADMIN_BASE}/keys/${record.id}` } });
    },
  };
  const list: Endpoint = {
    async handle(_request, serverContext) {
      onlyParameters(serverContext, []);
      return Response.json({ keys: (await admin.list(actorOf(serverContext))).map((record) => keyView(record, now())) });
    },
  };
  const show: Endpoint = {
    async handle(_request, serverContext) {
      const id = keyIdOf(serverContext);
      const record = await admin.show(actorOf(serverContext), Number(id));
      if (!record) throw notFound(id);
      return Response.json(keyView(record, now()));
    },
  };
  const usage: Endpoint = {
    async handle(_request, serverContext) {
      const id = keyIdOf(serverContext);
      const record = await admin.usage(actorOf(serverContext), Number(id));
      if (!record) throw notFound(id);
      const { perMinute, perDay, lastUsed, deprecatedCalls, lastDeprecatedCall, standing } = keyView(record, now());
      return Response.json({ id: record.id, standing, perMinute, perDay, lastUsed, deprecatedCalls, lastDeprecatedCall });
    },
  };
  const revoke: Endpoint = {
    async handle(_request, serverContext) {
      const id = keyIdOf(serverContext);
      onlyParameters(serverContext, []);
      const revoked = await admin.revoke(actorOf(serverContext), id);
      if (!revoked) throw notFound(id);
      return Response.json({ alreadyRevoked: revoked.alreadyRevoked, record: keyView(revoked.record, now()) });
    },
  };
  const roll: Endpoint = {
    async handle(_request, serverContext) {
      const id = keyIdOf(serverContext);
      const overlap = onlyParameters(serverContext, ['overlapSeconds']).get('overlapSeconds') ?? String(DEFAULT_OVERLAP_SECONDS);
      if (!/^\d{1,7}$/.test(overlap) || Number(overlap) > MAX_OVERLAP_SECONDS) throw appError('BAD_REQUEST', 'overlapSeconds must be a whole number from 0 to 7776000 (90 days)');
      const rolled = await asked(() => admin.roll(actorOf(serverContext), id, Number(overlap) * 1000));
      if (!rolled) throw notFound(id);
      return Response.json({
        key: rolled.key, record: keyView(rolled.record, now()), predecessor: { id: rolled.old.id, prefix: rolled.old.prefix, endsAt: rolled.oldEndsAt.toISOString() },
      }, { status: 201, headers: { Location: `${ADMIN_BASE}/keys/${rolled.record.id}` } });
    },
  };
  const audit: Endpoint = {
    async handle(_request, serverContext) {
      const query = onlyParameters(serverContext, ['limit', 'before']);
      const limit = query.get('limit') ?? String(DEFAULT_PAGE);
      const before = query.get('before');
      if (!/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_PAGE) throw appError('BAD_REQUEST', `limit must be from 1 to ${MAX_PAGE}`);
      if (before !== null && !/^[1-9]\d{0,15}$/.test(before)) throw appError('BAD_REQUEST', 'before must be an entry\'s id, a positive integer');
      const entries = await admin.auditPage(actorOf(serverContext), { limit: Number(limit), ...(before !== null ? { before: Number(before) } : {}) });
      const next = entries.length === Number(limit) ? entries.at(-1)!.id : null;
      return Response.json({
        entries: entries.map((entry) => ({ ...entry, at: entry.at.toISOString() })),
        next: next === null ? null : `${ADMIN_BASE}/audit?limit=${limit}&before=${next}`,
      });
    },
  };
  return {
    prefix: ADMIN_BASE,
    surface: errorBodies,
    paths: {
      [`${ADMIN_BASE}/keys`]: { GET: list, POST: create },
      [`${ADMIN_BASE}/keys/:keyId`]: { GET: show },
      [`${ADMIN_BASE}/keys/:keyId/usage`]: { GET: usage },
      [`${ADMIN_BASE}/keys/:keyId/revoke`]: { POST: revoke },
      [`${ADMIN_BASE}/keys/:keyId/roll`]: { POST: roll },
      [`${ADMIN_BASE}/audit`]: { GET: audit },
    },
  };
}
