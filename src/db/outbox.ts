import type { ChangeEvent, EventType } from '../domain/events.js';
import type { Statement, Statements } from './prepared.js';

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
 * Deletes the events that occurred before `before` (ms), `batch` at a time: many short statements rather
 * than one long one that would hold the table. Resolves with how many went. What goes is always a run of
 * the lowest ids (an old event behind a younger one waits for it), so the oldest id kept tells exactly
 * what was pruned; and the newest event stays whatever its age, so that the outbox knows the last id it
 * gave out, and an id from before the retention is told apart from one never given out.
 */
export async function pruneEvents(sql: Statements, before: number, batch = PRUNE_BATCH): Promise<number> {
  let removed = 0;
  for (;;) {
    const rows = await sql.all('SELECT id, occurred_at AS occurredAt FROM events WHERE id < (SELECT MAX(id) FROM events) ORDER BY id LIMIT ?', [String(batch)]);
    const young = rows.findIndex((row) => Number(row.occurredAt) >= before);
    const ids = (young < 0 ? rows : rows.slice(0, young)).map((row) => Number(row.id));
    if (ids.length > 0) removed += (await sql.run(`DELETE FROM events WHERE id IN (${ids.map(() => '?').join(', ')})`, ids)).affectedRows;
    if (young >= 0 || rows.length < batch) return removed;
  }
}


const READ = 'SELECT id, type, occurred_at AS occurredAt, payload FROM events WHERE id > ? ORDER BY id LIMIT ?';

/** A row of the outbox as the event it records: its payload (`kind` and the record) beside its id, type and time. */
const toEvent = (row: Record<string, unknown>): ChangeEvent => ({
  ...(JSON.parse(String(row.payload)) as Pick<ChangeEvent, 'kind' | 'pet' | 'order'>),
  id: Number(row.id), type: row.type as EventType, occurredAt: Number(row.occurredAt),
});

/** The outbox's events after the id `after`, oldest first, at most `limit`. */
export async function readEvents(sql: Statements, after: number, limit: number): Promise<ChangeEvent[]> {
  return (await sql.all(READ, [after, String(limit)])).map(toEvent);
}

/** A page of recorded events, and the ids the outbox holds (both undefined when it holds none). */
export interface EventPage {
  readonly events: ChangeEvent[];
  readonly oldest?: number;
  readonly newest?: number;
}

/**
 * The events after `after` up to `upTo`, oldest first, of `types` (all when not given), with the
 * outbox's oldest and newest ids, in one statement: the bounds are one row that the page joins (an empty
 * page still has it).
 */
export async function eventPage(
  sql: Statements, query: { after: number; upTo: number; limit: number; types?: readonly EventType[] },
): Promise<EventPage> {
  const { after, upTo, limit, types } = query;
  const byType = types ? ` AND e.type IN (${types.map(() => '?').join(', ')})` : '';
  const rows = await sql.all(
    'SELECT b.oldest, b.newest, e.id, e.type, e.occurred_at AS occurredAt, e.payload FROM (SELECT MIN(id) AS oldest, MAX(id) AS newest FROM events) b '
    + `LEFT JOIN events e ON e.id > ? AND e.id <= ?${byType} ORDER BY e.id LIMIT ?`,
    [after, upTo, ...(types ?? []), String(limit)],
  );
  const [first] = rows;
  const bound = (value: unknown) => (value == null ? undefined : Number(value));
  return {
    events: rows.filter((row) => row.id != null).map(toEvent),
    oldest: bound(first?.oldest),
    newest: bound(first?.newest),
  };
}

/** The newest event's id, 0 when there is none. */
export async function lastEventId(sql: Statements): Promise<number> {
  const [row] = await sql.all('SELECT MAX(id) AS id FROM events', []);
  return Number(row?.id ?? 0);
}
