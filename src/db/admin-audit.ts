import type { DataSource } from 'typeorm';
import { bounded } from './deadline.js';
import { prepared } from './prepared.js';

export interface AuditEntry {
  readonly id: number;
  readonly at: Date;
  /** An operator's name (ADMIN_TOKENS), or `cli:<user>` for the keys command. */
  readonly actor: string;
  readonly action: string;
  readonly keyId: number | null;
  /** The client's address, or `local` for the keys command. */
  readonly origin: string;
  readonly requestId: string | null;
  /** The HTTP status the call got (the keys command's: as the admin API would answer it). */
  readonly outcome: number;
}

export type NewAuditEntry = Omit<AuditEntry, 'id' | 'at'>;

const COLUMNS = 'id, at, actor, action, key_id AS keyId, origin, request_id AS requestId, outcome';

const entryOf = (row: Record<string, unknown>): AuditEntry => ({
  id: Number(row.id), at: new Date(Number(row.at)), actor: String(row.actor), action: String(row.action),
  keyId: row.keyId === null ? null : Number(row.keyId), origin: String(row.origin), requestId: (row.requestId as string | null) ?? null, outcome: Number(row.outcome),
});

/** The admin audit log: appended to by every admin call, read newest first a page at a time. */
export function adminAudit(dataSource: DataSource, now: () => number) {
  const sql = prepared(dataSource);
  return {
    async record(entry: NewAuditEntry): Promise<void> {
      await bounded(dataSource, () => sql.run(
        'INSERT INTO admin_audit (at, actor, action, key_id, origin, request_id, outcome) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [now(), entry.actor.slice(0, 80), entry.action, entry.keyId, entry.origin.slice(0, 64), entry.requestId?.slice(0, 64) ?? null, entry.outcome],
      ));
    },
    /** Newest first: `before` an entry's id for the next page. */
    page: ({ before, limit }: { before?: number; limit: number }) => bounded(dataSource, async () => {
      const rows = before === undefined
        ? await sql.all(`SELECT ${COLUMNS} FROM admin_audit ORDER BY id DESC LIMIT ?`, [String(limit)])
        : await sql.all(`SELECT ${COLUMNS} FROM admin_audit WHERE id < ? ORDER BY id DESC LIMIT ?`, [before, String(limit)]);
      return rows.map(entryOf);
    }),
  };
}

export type AdminAudit = ReturnType<typeof adminAudit>;
