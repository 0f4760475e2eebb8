import { decodeJwt, errors, jwtVerify, type JWTPayload } from 'jose';
import type { TokenConfig } from '../../config.js';
import { issuerKeys, KeysUnavailable, type IssuerKeys } from './issuer-keys.js';

/** Asymmetric only: a shared secret (HS*) could be forged by anyone who holds the public key, `none` by anyone. */
export const TOKEN_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;
/** Larger is not an access token: bounded before anything is decoded. */
export const MAX_TOKEN_LENGTH = 8_192;
/** RFC 9068's type, and what providers that predate it write (or nothing). */
const TYPES = new Set(['at+jwt', 'application/at+jwt', 'jwt']);

export const TOKEN_REFUSALS = [
  'token_malformed', 'token_issuer', 'token_algorithm', 'token_unknown_key', 'token_signature',
  'token_expired', 'token_not_yet_valid', 'token_audience', 'token_claims',
] as const;
export type TokenRefusal = typeof TOKEN_REFUSALS[number];

export type Verified = { readonly ok: true; readonly issuer: string; readonly claims: JWTPayload }
  | { readonly ok: false; readonly reason: TokenRefusal; readonly problem: string };

const refused = (reason: TokenRefusal, problem: string): Verified => ({ ok: false, reason, problem });

/** A JWT's shape (three base64url parts) without decoding it: keys and tokens are told apart by it alone. */
export const looksLikeJwt = (value: string): boolean => /^[\w-]+\.[\w-]+\.[\w-]*$/.test(value);

export interface TokenVerifier {
  /** Verified claims, or why not; throws KeysUnavailable when the issuer's keys cannot be had at all. */
  verify(token: string): Promise<Verified>;
  start(): void;
  stop(): void;
}

/**
 * jose does the work (signature, algorithms, `exp`/`nbf` within the leeway, unknown `crit` refused); the
 * key comes only from the issuer's published set, whatever the token's header names (`jku`, `x5u`, `jwk`,
 * `x5c` are never followed). What is ours: the issuer chosen by exact `iss`, the audience (Cognito's
 * `client_id` when there is no `aud`), `iat` not in the future, the type, and a reason for each refusal.
 */
export function tokenVerifier(config: TokenConfig): TokenVerifier {
  const keysOf = new Map<string, IssuerKeys>(config.issuers.map((issuer) =>
    [issuer, issuerKeys(issuer, config.refreshSeconds * 1000, config.maxStaleSeconds * 1000)]));
  const leeway = config.leewaySeconds;

  async function verify(token: string): Promise<Verified> {
    if (token.length > MAX_TOKEN_LENGTH) return refused('token_malformed', `The access token is longer than ${MAX_TOKEN_LENGTH} characters`);
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      return refused('token_malformed', 'The access token is not a readable JWT');
    }
    const keys = typeof unverified.iss === 'string' ? keysOf.get(unverified.iss) : undefined;
    if (!keys) return refused('token_issuer', 'The access token\'s issuer is not trusted here');
    const issuer = unverified.iss!;
    let claims: JWTPayload;
    try {
      const result = await jwtVerify(token, keys.key, {
        issuer, algorithms: [...TOKEN_ALGORITHMS], clockTolerance: leeway, requiredClaims: ['exp'],
      });
      claims = result.payload;
      const typ = result.protectedHeader.typ;
      if (typ !== undefined && !TYPES.has(typ.toLowerCase())) return refused('token_claims', `The token's type "${typ}" is not an access token's`);
    } catch (error) {
      if (error instanceof KeysUnavailable) throw error;
      return refusalOf(error);
    }
    const now = Math.floor(Date.now() / 1000);
    if (typeof claims.iat === 'number' && claims.iat > now + leeway) return refused('token_not_yet_valid', 'The access token was issued in the future (iat)');
    if (!forUs(claims, config.audience)) return refused('token_audience', `The access token is not for this API: its audience must include ${config.audience}`);
    return { ok: true, issuer, claims };
  }

  return {
    verify,
    start: () => { for (const keys of keysOf.values()) keys.start(); },
    stop: () => { for (const keys of keysOf.values()) keys.stop(); },
  };
}

function forUs(claims: JWTPayload, audience: string): boolean {
  const { aud } = claims;
  if (aud === undefined) return claims.client_id === audience;
  return Array.isArray(aud) ? aud.includes(audience) : aud === audience;
}

function refusalOf(error: unknown): Verified {
  if (error instanceof errors.JWTExpired) return refused('token_expired', 'The access token expired: get a fresh one');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return refused('token_not_yet_valid', 'The access token is not valid yet (nbf)');
    if (error.claim === 'iss') return refused('token_issuer', 'The access token\'s issuer is not trusted here');
    return refused('token_claims', `The access token's claims do not hold: ${error.message}`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return refused('token_algorithm', `The access token's algorithm is not accepted: only ${TOKEN_ALGORITHMS.join(', ')}`);
  if (error instanceof errors.JWKSNoMatchingKey) return refused('token_unknown_key', 'The access token names a key its issuer does not publish');
  if (error instanceof errors.JWSSignatureVerificationFailed) return refused('token_signature', 'The access token\'s signature does not verify');
  return refused('token_malformed', 'The access token is malformed');
}
