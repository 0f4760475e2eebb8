/** A key's standing at a moment: open, or why it takes no calls. */
export type KeyStanding = 'open' | 'revoked' | 'expired';

/**
 * One rule for every place that asks (authentication, a webhook's send for its key, key administration):
 * a revoked key is closed for good; a key with an end is closed from that instant on.
 */
export function keyStanding(key: { readonly revokedAt?: Date | null; readonly expiresAt?: Date | number | null }, now: number): KeyStanding {
  if (key.revokedAt) return 'revoked';
  const ends = key.expiresAt instanceof Date ? key.expiresAt.getTime() : key.expiresAt;
  return ends !== undefined && ends !== null && ends <= now ? 'expired' : 'open';
}
