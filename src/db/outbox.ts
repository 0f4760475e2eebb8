import type { ChangeEvent, EventType, NewEvent } from '../domain/events.js';
import type { DataSource } from 'typeorm';
import { bounded } from './deadline.js';
import { placeholders } from './dialect.js';
import { prepared, type Prepared, type Statement, type Statements } from './prepared.js';

/** The one INSERT of events: the statements below, and a new pet's (pets.ts), begin with it. */
export const INSERT_EVENT = 'INSERT INTO events (type, occurred_at, payload)';

/**
 * The statement that records events whose payloads are known here (the records a transaction already
 * read or made): one statement for all of them, inside the change's transaction.
 */
export function recordEvents(at: number, events: readonly NewEvent[]): Statement {
  return [
    `${INSERT_EVENT} VALUES ${events.map(() => placeholders(3)).join(', ')}`,
    events.flatMap(({ type, payload }) => [type, at, JSON.stringify(payload)]),
  ];
}

/**
 * The statement that records an event whose record is read from its row by the statement itself (a
 * record the transaction has not read: a pet just inserted or updated in the same round trip).
 * `payload` is the row as a JSON object expression; `where` picks the row.
 */
export const recordEventOfRow = (table: string, payload: string, where: string) =>
  `${INSERT_EVENT} SELECT ?, ?, json_object('kind', ?, ${payload}) FROM ${table} WHERE ${where}`;

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
    if (ids.length > 0) removed += (await sql.run(`DELETE FROM events WHERE id IN ${placeholders(ids.length)}`, ids)).affectedRows;
    if (young >= 0 || rows.length < batch) return removed;
  }
}

const COLUMNS = 'id, type, occurred_at AS occurredAt, payload';
const READ = `SELECT ${COLUMNS} FROM events WHERE id > ? ORDER BY id LIMIT ?`;

/**
 * A row of the outbox as the event it records: its payload (`kind` and the record its type names, as the
 * statement that recorded it wrote them) beside its id, type and time.
 */
const toEvent = (row: Record<string, unknown>): ChangeEvent => ({
  ...(JSON.parse(String(row.payload)) as Omit<ChangeEvent, 'id' | 'type' | 'occurredAt'>),
  id: Number(row.id), type: row.type as EventType, occurredAt: Number(row.occurredAt),
}) as ChangeEvent;

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

/** The events after `after` up to `upTo`, oldest first, at most `limit`; of `types` only, when given. */
export interface PageQuery {
  readonly after: number;
  readonly upTo: number;
  readonly limit: number;
  readonly types?: readonly EventType[];
}

/**
 * The (type, id) index, named: MariaDB plans `type = ? AND id > ? ORDER BY id` from the start of the
 * type's range without it, as it does the pets' status (keyset.ts).
 */
const BY_TYPE = { mysql: ' FORCE INDEX (IDX_events_type_id)', sqlite: ' INDEXED BY IDX_events_type_id' } as const;

/**
 * The page of `query` with the outbox's oldest and newest ids, as one statement whose every part costs
 * what its page holds, wherever the page is: the page is a range of the primary key from `after` (of the
 * (type, id) index for each type: one range each, merged by id), read up to its LIMIT and no further,
 * and the bounds are MIN and MAX of the primary key, which the server reads from the ends of the index.
 * The bounds are one row that the page joins, so an empty page still has them. (A page joined to the
 * bounds, rather than read apart, was sorted whole before its LIMIT on MariaDB: every id after `after`.)
 */
export function historyStatement({ after, upTo, limit, types }: PageQuery, dialect: Prepared['dialect']): Statement {
  const params = types?.length
    ? [...types.flatMap((type) => [type, after, upTo, String(limit)]), String(limit)]
    : [after, upTo, String(limit)];
  return [historySql(dialect, types?.length ?? 0), params];
}

/** The SQL of a page of `typeCount` types (0: of every type), made once per shape: its text is the prepared statement's key. */
const historySql = (() => {
  const made = new Map<string, string>();
  const range = 'id > ? AND id <= ? ORDER BY id LIMIT ?';
  return (dialect: Prepared['dialect'], typeCount: number) => {
    const shape = `${dialect}:${typeCount}`;
    let sql = made.get(shape);
    if (!sql) {
      const ofType = (alias: string) => `SELECT * FROM (SELECT ${COLUMNS} FROM events${BY_TYPE[dialect]} WHERE type = ? AND ${range}) ${alias}`;
      const page = typeCount > 0
        ? `${Array.from({ length: typeCount }, (_, i) => ofType(`t${i}`)).join(' UNION ALL ')} ORDER BY id LIMIT ?`
        : `SELECT ${COLUMNS} FROM events WHERE ${range}`;
      sql = `SELECT b.oldest, b.newest, p.id, p.type, p.occurredAt, p.payload FROM (SELECT MIN(id) AS oldest, MAX(id) AS newest FROM events) b LEFT JOIN (${page}) p ON 1 = 1 ORDER BY p.id`;
      made.set(shape, sql);
    }
    return sql;
  };
})();

/** The page of `query` (see historyStatement), through whichever statements the caller has (a transaction's, among them). */
export async function eventPage(sql: Statements, query: PageQuery, dialect: Prepared['dialect']): Promise<EventPage> {
  const rows = await sql.all(...historyStatement(query, dialect));
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

/**
 * The outbox's reads on the primary, each under the database deadline like every request's reads: past
 * it, or with the database out of reach, UNAVAILABLE (503), never a hung or failed (500) request.
 */
export function outboxReads(dataSource: DataSource) {
  const sql = prepared(dataSource);
  return {
    page: (query: PageQuery) => bounded(dataSource, () => eventPage(sql, query, sql.dialect)),
    read: (after: number, limit: number) => bounded(dataSource, () => readEvents(sql, after, limit)),
    last: () => bounded(dataSource, () => lastEventId(sql)),
    position: () => bounded(dataSource, () => primaryPosition(sql)),
  };
}

/** MariaDB's, then MySQL's: what the primary has written so far, in the form a replica waits for. */
const POSITION_QUERIES = ['SELECT @@global.gtid_binlog_pos AS position', 'SELECT @@global.gtid_executed AS position'];
let positionQuery = 0;

/**
 * The primary's position now (positions.ts): a replica that has applied it has every transaction
 * committed before this was asked. Undefined where the server keeps no GTIDs.
 */
export async function primaryPosition(sql: Statements): Promise<string | undefined> {
  try {
    const [row] = await sql.all(POSITION_QUERIES[positionQuery]!, []);
    const position = row?.position == null ? '' : String(row.position).replace(/\s+/g, '');
    return position || undefined;
  } catch (error) {
    // The other server's variable: ask the other way from now on.
    if (positionQuery === 0 && (error as { errno?: number }).errno === 1193) {
      positionQuery = 1;
      return primaryPosition(sql);
    }
    throw error;
  }
}
