import type { MariadbReplicaLab } from '../scale/lab/mariadb-replica.js';
import type { WriteRecord } from './clients.js';

export interface Violation {
  readonly check: string;
  readonly record: unknown;
}

/**
 * The books, from the writers' records and the primary: a write acknowledged with a 2xx is stored exactly
 * once, under the id it was given; a write that got an error or no answer is stored at most once (its
 * retries carried the same Idempotency-Key).
 */
export async function auditWrites(writes: readonly WriteRecord[], database: MariadbReplicaLab, prefix: string): Promise<Violation[]> {
  const rows = await database.query('primary', 'SELECT id, name FROM pets WHERE name LIKE ?', [`${prefix}%`]);
  const stored = new Map<string, number[]>();
  for (const row of rows as { id: number; name: string }[]) stored.set(row.name, [...(stored.get(row.name) ?? []), Number(row.id)]);
  const violations: Violation[] = [];
  for (const write of writes) {
    const ids = stored.get(write.name) ?? [];
    const acknowledged = write.status >= 200 && write.status < 300;
    if (acknowledged && (ids.length !== 1 || ids[0] !== write.id)) violations.push({ check: 'an acknowledged write is stored exactly once', record: { ...write, stored: ids } });
    if (!acknowledged && ids.length > 1) violations.push({ check: 'an unacknowledged write is stored at most once', record: { ...write, stored: ids } });
  }
  return violations;
}
