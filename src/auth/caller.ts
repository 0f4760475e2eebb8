/** Who is calling, as the one authentication step (authenticate.ts) decides it: a key or a token subject, or no one. */
import type { Plan } from '../domain/plans.js';
import type { Scope } from '../domain/scopes.js';
import type { DocumentMode } from '../settings/declarations.js';
import { TOKEN_REFUSALS } from './tokens/verify.js';

/** A key that may be used now, with the limits it is held to. */
export interface ActiveKey {
  readonly id: number;
  readonly prefix: string;
  readonly plan: Plan;
  readonly perMinute: number;
  readonly perDay: number;
  /** Unix ms at which it stops working, if it does. */
  readonly expiresAt?: number;
  /** A restricted key's scopes; without them, it may call everything. */
  readonly scopes?: ReadonlySet<Scope>;
  /** Which GraphQL documents it may send, when its own setting overrides the service's. */
  readonly documents?: DocumentMode;
  /** An access token's subject (auth/tokens/), not a key: nothing of it is in the key table. */
  readonly viaToken?: true;
}

/** Why a request has no key to act with (the metrics count 401s by it). */
export const NO_KEY_REASONS = ['missing', 'malformed', 'mistyped', 'unknown', 'revoked', 'expired', ...TOKEN_REFUSALS] as const;
export type NoKeyReason = typeof NO_KEY_REASONS[number];

export type Caller =
  | { readonly kind: 'key'; readonly key: ActiveKey }
  | { readonly kind: 'anonymous'; readonly problem: string; readonly sentToken: boolean; readonly reason: NoKeyReason };

