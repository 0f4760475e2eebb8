/** Keys whose last write here is remembered at most: the oldest is forgotten first (its reads then wait for the reader). */
const REMEMBERED = 10_000;

/**
 * The writes this instance committed and applied to its own cache at once, ahead of its outbox reader
 * (which hears of them a moment later): a write's answer need not wait for that read. Per key, the outbox
 * id its last write here was read through, and the one of the key's write before it (which may have been
 * on another instance: that one must have been read here).
 */
export function appliedAhead() {
  const byKey = new Map<number, { readonly through: number; readonly before: number }>();
  /** The highest id applied ahead: until the reader passes it, a replica may not have the change yet. */
  let highest = 0;
  return {
    note(keyId: number, through: number, before: number): void {
      // Its write before was here too: what must have been read is what that one needed.
      const prior = byKey.get(keyId);
      byKey.delete(keyId);
      byKey.set(keyId, { through, before: prior?.through === before ? prior.before : before });
      if (byKey.size > REMEMBERED) byKey.delete(byKey.keys().next().value!);
      highest = Math.max(highest, through);
    },
    /** The key's last write, read through `through`, was applied here, and its write before it has been read (`position`). */
    covers(keyId: number, through: number, position: number): boolean {
      const mine = byKey.get(keyId);
      return mine !== undefined && mine.through === through && position >= mine.before;
    },
    /** Whether some change applied here is still ahead of what the reader has read up to `position`. */
    ahead: (position: number): boolean => position < highest,
  };
}
