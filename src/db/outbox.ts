import type { Statement, Statements } from './prepared.js';

/** What each change is called in the outbox (and in the event feed and webhooks). */
export type EventType = 'pet.created' | 'pet.updated' | 'pet.deleted' | 'order.created' | 'order.updated';

const INSERT = 'INSERT INTO events (type, occurred_at, payload) VALUES ';

/**
 * The statement that records events whose payloads are known here (the records a transaction already
 * read or made): one statement for all of them, inside the change's transaction.
 */
export function recordEvents(at: number, events: readonly { type: EventType; payload: object }[]): Statement {
  return [
    INSERT + events.map(() => '(?, ?, ?)').join(', '),
    events.flatMap(({ type, payload }) => [type, at, JSON.stringify(payload)]),
  ];
}

/**
 * The statement that records an event whose record is read from its row by the statement itself (a
 * record the transaction has not read: a pet just inserted or updated in the same round trip).
 * `payload` is the row as a JSON object expression; `where` picks the row.
 */
export const recordEventOfRow = (table: string, payload: string, where: string) =>
  `INSERT INTO events (type, occurred_at, payload) SELECT ?, ?, json_object('kind', ?, ${payload}) FROM ${table} WHERE ${where}`;

/** Events deleted per statement: each delete is short, whatever the backlog. */
const PRUNE_BATCH = 500;

/**
 * Deletes the events that occurred before `before` (ms), oldest first, `batch` at a time: many short
 * statements rather than one long one that would hold the table. Resolves with how many went.
 */
export async function pruneEvents(sql: Statements, before: number, batch = PRUNE_BATCH): Promise<number> {
  let removed = 0;
  for (;;) {
    const ids = (await sql.all('SELECT id FROM events WHERE occurred_at < ? ORDER BY occurred_at LIMIT ?', [before, String(batch)]))
      .map((row) => Number(row.id));
    if (ids.length === 0) return removed;
    removed += (await sql.run(`DELETE FROM events WHERE id IN (${ids.map(() => '?').join(', ')})`, ids)).affectedRows;
    if (ids.length < batch) return removed;
  }
}

/** An event as the outbox keeps it. */
export interface StoredEvent {
  readonly id: number;
  readonly type: EventType;
  readonly occurredAt: number;
  /** The JSON text of the payload. */
  readonly payload: string;
}

const READ = 'SELECT id, type, occurred_at AS occurredAt, payload FROM events WHERE id > ? ORDER BY id LIMIT ?';

/** The outbox's events after the id `after`, oldest first, at most `limit`. */
export async function readEvents(sql: Statements, after: number, limit: number): Promise<StoredEvent[]> {
  return (await sql.all(READ, [after, String(limit)])).map((row) => ({
    id: Number(row.id), type: row.type as EventType, occurredAt: Number(row.occurredAt), payload: String(row.payload),
  }));
}

/** The newest event's id, 0 when there is none. */
export async function lastEventId(sql: Statements): Promise<number> {
  const [row] = await sql.all('SELECT MAX(id) AS id FROM events', []);
  return Number(row?.id ?? 0);
}
