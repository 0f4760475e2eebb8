import type { MariadbReplicaLab } from '../scale/lab/mariadb-replica.js';
import type { FeedEvent, WriteRecord } from './clients.js';

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

/**
 * The feed as a reader saw it: ids only ever going up, none twice, and exactly one `pet.created` for each
 * pet the run's writers stored (and none for a pet that is not stored).
 */
export function auditFeed(events: readonly FeedEvent[], writes: readonly WriteRecord[], prefix: string): Violation[] {
  const violations: Violation[] = [];
  for (let i = 1; i < events.length; i++) {
    if (events[i]!.id <= events[i - 1]!.id) violations.push({ check: 'the feed goes up by id, each event once', record: { before: events[i - 1]!.id, then: events[i]!.id } });
  }
  const created = new Map<number, number>();
  for (const event of events) {
    if (event.type !== 'pet.created' || !event.pet?.name.startsWith(prefix)) continue;
    created.set(event.pet.id, (created.get(event.pet.id) ?? 0) + 1);
  }
  const stored = new Set(writes.filter((w) => w.id !== undefined).map((w) => w.id!));
  for (const id of stored) {
    const seen = created.get(id) ?? 0;
    if (seen !== 1) violations.push({ check: 'each stored pet has exactly one pet.created in the feed', record: { petId: id, events: seen } });
  }
  for (const id of created.keys()) {
    if (!stored.has(id)) violations.push({ check: 'the feed holds no pet.created for a pet no acknowledged write made', record: { petId: id } });
  }
  return violations;
}
