import { hash } from 'node:crypto';
import type { JWTPayload } from 'jose';
import type { TokenConfig } from '../../config.js';
import type { TokenSubjectStore } from '../../db/token-subjects.js';
import { PLANS } from '../../domain/plans.js';
import { isScope, type Scope } from '../../domain/scopes.js';
import { appError } from '../../errors.js';
import type { ActiveKey, Caller } from '../caller.js';
import { KeysUnavailable } from './issuer-keys.js';
import { tokenVerifier, type TokenRefusal } from './verify.js';

/** Tokens remembered at once (verified or refused): a bound on memory, oldest dropped first. */
const REMEMBERED = 10_000;
/** A refusal that cannot change (a bad signature, a wrong audience) is remembered this long. */
const REFUSAL_MS = 60_000;
/** Refusals that may change within seconds are not remembered: a key about to be published, keys not yet fetched. */
const CHANGING: ReadonlySet<TokenRefusal> = new Set(['token_unknown_key']);
/** What a token without the scope claim may do: read, never write. */
const READ_ONLY: ReadonlySet<Scope> = new Set(['pets:read', 'orders:read']);

type Remembered = { readonly caller: Caller; readonly until: number };

export interface TokenCallers {
  callerOf(token: string): Caller | Promise<Caller>;
  start(): void;
  stop(): void;
}

/**
 * Access token → caller, as a key would be: the subject (`iss` + `sub`, or `client_id` for a machine
 * token) gets an id of its own (negative: never a key's), the plan's limits, the token's scopes, and the
 * token's `exp` as its end. Each token is verified once and remembered until it expires.
 */
export function tokenCallers(config: TokenConfig, subjects: TokenSubjectStore): TokenCallers {
  const verifier = tokenVerifier(config);
  const remembered = new Map<string, Remembered>();
  const subjectIds = new Map<string, number>();
  const limits = config.plan === 'enterprise' ? { perMinute: config.perMinute, perDay: config.perDay } : PLANS[config.plan];

  const remember = (digest: string, caller: Caller, until: number): Caller => {
    if (remembered.size >= REMEMBERED) remembered.delete(remembered.keys().next().value!);
    remembered.set(digest, { caller, until });
    return caller;
  };

  async function subjectIdOf(issuer: string, subject: string): Promise<number> {
    const name = `${issuer}\n${subject}`;
    let id = subjectIds.get(name);
    if (id === undefined) {
      id = await subjects.idOf(issuer, subject);
      if (subjectIds.size >= REMEMBERED) subjectIds.delete(subjectIds.keys().next().value!);
      subjectIds.set(name, id);
    }
    return id;
  }

  function scopesOf(claims: JWTPayload): ReadonlySet<Scope> {
    const claim = claims[config.scopeClaim];
    if (claim === undefined) return READ_ONLY;
    const names = typeof claim === 'string' ? claim.split(' ') : Array.isArray(claim) ? claim.filter((item) => typeof item === 'string') : [];
    const prefix = config.scopePrefix;
    return new Set(names.flatMap((name) => {
      const bare = prefix ? (name.startsWith(prefix) ? name.slice(prefix.length) : '') : name;
      return isScope(bare) ? [bare] : [];
    }));
  }

  async function verified(token: string, digest: string, now: number): Promise<Caller> {
    let result;
    try {
      result = await verifier.verify(token);
    } catch (error) {
      if (!(error instanceof KeysUnavailable)) throw error;
      throw appError('UNAVAILABLE', 'The identity provider\'s keys cannot be fetched right now: try again shortly', { headers: { 'Retry-After': '5' } });
    }
    if (!result.ok) {
      const caller: Caller = { kind: 'anonymous', problem: result.problem, sentToken: true, reason: result.reason };
      return CHANGING.has(result.reason) ? caller : remember(digest, caller, now + REFUSAL_MS);
    }
    const { issuer, claims } = result;
    const subject = typeof claims.sub === 'string' && claims.sub ? claims.sub : typeof claims.client_id === 'string' && claims.client_id ? claims.client_id : undefined;
    if (!subject) {
      return remember(digest, { kind: 'anonymous', problem: 'The access token names no subject (sub or client_id)', sentToken: true, reason: 'token_claims' }, now + REFUSAL_MS);
    }
    const expiresAt = claims.exp! * 1000 + config.leewaySeconds * 1000;
    const key: ActiveKey = {
      id: -(await subjectIdOf(issuer, subject)),
      // A stable pseudonym for logs: the same person reads the same in every line, and is named in none.
      prefix: `sub_${hash('sha256', `${issuer}\n${subject}`, 'base64url').slice(0, 10)}`,
      plan: config.plan, perMinute: limits.perMinute, perDay: limits.perDay,
      expiresAt, scopes: scopesOf(claims), viaToken: true,
    };
    return remember(digest, { kind: 'key', key }, expiresAt);
  }

  return {
    callerOf(token) {
      const digest = hash('sha256', token, 'base64url');
      const now = Date.now();
      const hit = remembered.get(digest);
      if (hit && hit.until > now) return hit.caller;
      if (hit) remembered.delete(digest);
      return verified(token, digest, now);
    },
    start: verifier.start,
    stop: verifier.stop,
  };
}
