import type { DataSource } from 'typeorm';
import type { Clock } from '../clock.js';
import type { EventType } from '../domain/events.js';
import type { DeliveryStatus, WebhookDelivery, WebhookEndpoint } from '../domain/webhooks.js';
import { appError } from '../errors.js';
import { bounded } from './deadline.js';
import { eventPage } from './outbox.js';
import { FOR_UPDATE, prepared, type Row, type Statements } from './prepared.js';

/** An endpoint as the sender needs it. */
export interface EndpointTarget {
  readonly id: number;
  readonly keyId: number;
  readonly url: string;
  readonly secret: string;
  readonly types: readonly EventType[];
  readonly enabled: boolean;
}

/** A delivery claimed for sending: the claim lapses at its `next_attempt_at`, and another instance may take it. */
export interface ClaimedDelivery {
  readonly id: number;
  readonly endpointId: number;
  readonly type: string;
  readonly payload: string;
  /** Attempts made before this one. */
  readonly attempts: number;
  readonly createdAt: number;
}

/** How an attempt went. */
export interface Attempt {
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

const ENDPOINT = 'SELECT id, key_id AS keyId, url, types, secret, enabled, disabled_reason AS disabledReason, created_at AS createdAt FROM webhook_endpoints';
const DELIVERY = 'SELECT id, event_id AS eventId, type, status, attempts, next_attempt_at AS nextAttemptAt, last_status_code AS lastStatusCode, '
  + 'last_error AS lastError, last_duration_ms AS lastDurationMs, created_at AS createdAt, delivered_at AS deliveredAt FROM webhook_deliveries';
/** Due deliveries, each row locked by one instance; the others skip it rather than wait (MySQL 8, MariaDB 10.6). */
const SKIP_LOCKED = { mysql: ' FOR UPDATE SKIP LOCKED', sqlite: '' } as const;

/**
 * `?` marks for a list of `n` ids, rounded up to a power of two (padded with 0, an id never given): a few
 * statement texts, each prepared once, rather than one per length.
 */
const listLength = (n: number) => 2 ** Math.ceil(Math.log2(Math.max(1, n)));
const marks = (n: number) => Array<string>(listLength(n)).fill('?').join(', ');
const padded = (ids: readonly number[]) => [...ids, ...Array<number>(listLength(ids.length) - ids.length).fill(0)];

const iso = (ms: unknown) => (ms == null ? null : new Date(Number(ms)).toISOString());
const typesOf = (text: unknown) => (String(text) === '' ? [] : String(text).split(',')) as EventType[];

const toEndpoint = (row: Row): WebhookEndpoint & { keyId: number; secret: string } => ({
  id: Number(row.id), keyId: Number(row.keyId), url: String(row.url), types: typesOf(row.types), secret: String(row.secret),
  enabled: Boolean(Number(row.enabled)), disabledReason: row.disabledReason == null ? null : String(row.disabledReason), createdAt: iso(row.createdAt)!,
});
const publicEndpoint = ({ keyId: _k, secret: _s, ...endpoint }: ReturnType<typeof toEndpoint>): WebhookEndpoint => endpoint;

const toDelivery = (row: Row): WebhookDelivery => {
  const status = row.status as DeliveryStatus;
  return {
    id: Number(row.id), eventId: row.eventId == null ? null : Number(row.eventId), type: String(row.type), status,
    attempts: Number(row.attempts), lastStatusCode: row.lastStatusCode == null ? null : Number(row.lastStatusCode),
    lastError: row.lastError == null ? null : String(row.lastError), lastDurationMs: row.lastDurationMs == null ? null : Number(row.lastDurationMs),
    nextAttemptAt: status === 'pending' ? iso(row.nextAttemptAt) : null, createdAt: iso(row.createdAt)!, deliveredAt: iso(row.deliveredAt),
  };
};

export const endpointNotFound = (id: number) => appError('NOT_FOUND', `Webhook endpoint ${id} not found`);

/** The body of a webhook, as Standard Webhooks has it: the type, the time, and the event. */
export function webhookBody(type: string, occurredAt: number, data: object): string {
  return JSON.stringify({ type, timestamp: new Date(occurredAt).toISOString(), data });
}

/** Webhook endpoints and deliveries, on the primary (every call here writes, or must see the latest writes). */
export function webhookStore(dataSource: DataSource, clock: Clock) {
  const sql = prepared(dataSource);
  const within = <T>(work: () => Promise<T>) => bounded(dataSource, work);
  const endpointOf = async (keyId: number, id: number, tx: Statements = sql) => {
    const [row] = await tx.all(`${ENDPOINT} WHERE id = ? AND key_id = ?`, [id, keyId]);
    if (!row) throw endpointNotFound(id);
    return toEndpoint(row);
  };
  // Read in the transaction that made it due: after the commit, a dispatcher may already have sent it,
  // and the answer must say what this request did (pending), not what came of it since.
  const deliveryOf = async (id: number, tx: Statements) => toDelivery((await tx.all(`${DELIVERY} WHERE id = ?`, [id]))[0]!);
  /**
   * In a transaction: the key's endpoint, locked (requests for one endpoint count one after the other),
   * unless it already has `limit` deliveries asked for by hand (test events, redeliveries) that are waiting
   * or being sent, `except` aside. Each is attempted at the endpoint's own pace: more would only queue.
   */
  const onRequest = async (tx: Statements, keyId: number, id: number, except: number, limit: number) => {
    const [row] = await tx.all(`SELECT id FROM webhook_endpoints WHERE id = ? AND key_id = ?${FOR_UPDATE[sql.dialect]}`, [id, keyId]);
    if (!row) throw endpointNotFound(id);
    const [{ n } = { n: 0 }] = await tx.all('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = ? AND status = \'pending\' AND on_request = 1 AND id <> ?', [id, except]);
    if (Number(n) >= limit) {
      throw appError('CONFLICT', `Webhook endpoint ${id} has ${limit} test events and redeliveries waiting to be sent: ask again once one has been attempted (see its deliveries)`);
    }
  };

  return {
    list: (keyId: number) => within(async () => (await sql.all(`${ENDPOINT} WHERE key_id = ? ORDER BY id`, [keyId])).map((row) => publicEndpoint(toEndpoint(row)))),
    get: (keyId: number, id: number) => within(async () => publicEndpoint(await endpointOf(keyId, id))),
    /** An endpoint's signing secret, kept here only: undefined once the endpoint is deleted. */
    secretOf: (id: number) => within(async () => {
      const [row] = await sql.all('SELECT secret FROM webhook_endpoints WHERE id = ?', [id]);
      return row ? String(row.secret) : undefined;
    }),

    /** A new endpoint, unless the key has `limit` already (counted in the same transaction). */
    create: (keyId: number, input: { url: string; types: readonly EventType[]; secret: string }, limit: number) => within(() => sql.transaction(async (tx) => {
      // The key's row, locked: two creations by one key at once count one after the other.
      await tx.all(`SELECT id FROM api_keys WHERE id = ?${sql.dialect === 'mysql' ? ' FOR UPDATE' : ''}`, [keyId]);
      const [{ n } = { n: 0 }] = await tx.all('SELECT COUNT(*) AS n FROM webhook_endpoints WHERE key_id = ?', [keyId]);
      if (Number(n) >= limit) {
        throw appError('CONFLICT', `A key may have at most ${limit} webhook endpoints: delete one before adding another`);
      }
      const [{ newest } = { newest: 0 }] = await tx.all('SELECT COALESCE(MAX(id), 0) AS newest FROM events', []);
      const { insertId } = await tx.run(
        'INSERT INTO webhook_endpoints (key_id, url, types, secret, enabled, after_event_id, created_at) VALUES (?, ?, ?, ?, 1, ?, ?)',
        [keyId, input.url, input.types.join(','), input.secret, Number(newest), clock.now()],
      );
      return publicEndpoint(await endpointOf(keyId, insertId, tx));
    })),

    update: (keyId: number, id: number, change: { url?: string; types?: readonly EventType[]; enabled?: boolean }) => within(async () => {
      await endpointOf(keyId, id);
      await sql.run(
        // Enabled again by its owner: its failures so far are forgotten, and it hears the events from now
        // on, as a new endpoint does (not those made while it was disabled).
        'UPDATE webhook_endpoints SET after_event_id = CASE WHEN ? = 1 AND enabled = 0 THEN (SELECT COALESCE(MAX(id), 0) FROM events) ELSE after_event_id END, '
        + 'url = COALESCE(?, url), types = COALESCE(?, types), enabled = COALESCE(?, enabled), '
        + 'disabled_reason = CASE WHEN ? = 1 THEN NULL ELSE disabled_reason END, failing_since = CASE WHEN ? = 1 THEN NULL ELSE failing_since END WHERE id = ?',
        [Number(change.enabled === true), change.url ?? null, change.types?.join(',') ?? null, change.enabled == null ? null : Number(change.enabled),
          Number(change.enabled === true), Number(change.enabled === true), id],
      );
      return publicEndpoint(await endpointOf(keyId, id));
    }),

    /** Its deliveries go with it (the foreign key cascades). */
    delete: (keyId: number, id: number) => within(async () => {
      const endpoint = await endpointOf(keyId, id);
      await sql.run('DELETE FROM webhook_endpoints WHERE id = ?', [id]);
      return publicEndpoint(endpoint);
    }),

    /**
     * A delivery due now, of an event that is no change: the endpoint's test. Asked for by hand: refused
     * while the endpoint has `limit` such waiting (see `onRequest`).
     */
    enqueue: (keyId: number, id: number, type: string, payload: string, limit: number) => within(() => sql.transaction(async (tx) => {
      await onRequest(tx, keyId, id, 0, limit);
      const now = clock.now();
      const { insertId } = await tx.run(
        'INSERT INTO webhook_deliveries (endpoint_id, event_id, type, payload, status, attempts, next_attempt_at, created_at, on_request) VALUES (?, NULL, ?, ?, \'pending\', 0, ?, ?, 1)',
        [id, type, payload, now, now],
      );
      return deliveryOf(insertId, tx);
    })),

    deliveries: (keyId: number, id: number, limit: number) => within(async () => {
      await endpointOf(keyId, id);
      return (await sql.all(`${DELIVERY} WHERE endpoint_id = ? ORDER BY id DESC LIMIT ?`, [id, String(limit)])).map(toDelivery);
    }),

    /**
     * Due now again, whatever became of it; its attempts so far count on. Asked for by hand, like a test:
     * one already waiting on request stays as it is (its place, or its claim, kept).
     */
    redeliver: (keyId: number, id: number, deliveryId: number, limit: number) => within(() => sql.transaction(async (tx) => {
      await onRequest(tx, keyId, id, deliveryId, limit);
      const { affectedRows } = await tx.run(
        // next_attempt_at first: MySQL's later assignments would see the status already set.
        'UPDATE webhook_deliveries SET next_attempt_at = CASE WHEN status = \'pending\' AND on_request = 1 THEN next_attempt_at ELSE ? END, '
        + 'status = \'pending\', on_request = 1 WHERE id = ? AND endpoint_id = ?',
        [clock.now(), deliveryId, id],
      );
      if (affectedRows === 0) throw appError('NOT_FOUND', `Delivery ${deliveryId} of webhook endpoint ${id} not found`);
      return deliveryOf(deliveryId, tx);
    })),

    /** Whether any endpoint is enabled: without one, there is nothing to fan out. */
    anyEnabled: () => within(async () => (await sql.all('SELECT 1 AS found FROM webhook_endpoints WHERE enabled = 1 LIMIT 1', [])).length > 0),

    /**
     * Turns the events after the fan-out's place, up to `upTo` (settled: no lower id can still appear),
     * into a delivery per enabled endpoint that takes them, and moves the place on, in one transaction.
     * One instance at a time: another that finds the place locked leaves it to that one. `accepts` says
     * whether an endpoint's key may still receive (not revoked, not expired). Resolves with the
     * deliveries made.
     */
    fanOut: (upTo: number, accepts: (keyId: number) => Promise<boolean>, batch = 500) => within(() => sql.transaction(async (tx) => {
      const [place] = await tx.all(`SELECT last_event_id AS lastEventId FROM webhook_fanout WHERE id = 1${SKIP_LOCKED[sql.dialect]}`, []);
      if (!place || Number(place.lastEventId) >= upTo) return 0;
      const after = Number(place.lastEventId);
      const { events } = await eventPage(tx, { after, upTo, limit: batch }, sql.dialect);
      const reached = events.length === batch ? events.at(-1)!.id : upTo;
      const endpoints = (await tx.all('SELECT id, key_id AS keyId, types, after_event_id AS afterEventId FROM webhook_endpoints WHERE enabled = 1', []))
        .map((row) => ({ id: Number(row.id), keyId: Number(row.keyId), types: typesOf(row.types), after: Number(row.afterEventId) }));
      const open = new Map<number, boolean>();
      for (const { keyId } of endpoints) if (!open.has(keyId)) open.set(keyId, await accepts(keyId));
      const now = clock.now();
      const rows: unknown[][] = [];
      for (const event of events) {
        const { id, type, occurredAt, ...data } = event;
        for (const endpoint of endpoints) {
          if (!open.get(endpoint.keyId) || id <= endpoint.after || (endpoint.types.length > 0 && !endpoint.types.includes(type))) continue;
          rows.push([endpoint.id, id, type, webhookBody(type, occurredAt, { id, occurredAt: new Date(occurredAt).toISOString(), ...data }), now, now]);
        }
      }
      // A pair already there (the place moved back by a restore) is left as it is.
      const ignore = sql.dialect === 'mysql' ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
      for (let i = 0; i < rows.length; i += 100) {
        const chunk = rows.slice(i, i + 100);
        await tx.run(`${ignore} INTO webhook_deliveries (endpoint_id, event_id, type, payload, status, attempts, next_attempt_at, created_at) VALUES `
          + chunk.map(() => '(?, ?, ?, ?, \'pending\', 0, ?, ?)').join(', '), chunk.flat());
      }
      await tx.run('UPDATE webhook_fanout SET last_event_id = ? WHERE id = 1', [reached]);
      return rows.length;
    })),

    /**
     * Claims due deliveries until `now + leaseMs`, each this instance's to send until then. Scans up to
     * `scan` due ones, the oldest first, of endpoints not in `skip` (those with no slot free here), and
     * claims those `pick` chooses; the others stay due, unlocked at the commit. `more`: the scan was full,
     * so more may be due.
     */
    claim: (leaseMs: number, { skip, pick, scan = 100 }: {
      skip: readonly number[]; pick: (due: { id: number; endpointId: number }[]) => { id: number; endpointId: number }[]; scan?: number;
    }) => within(() => sql.transaction(async (tx) => {
      const now = clock.now();
      const due = (await tx.all(
        `SELECT id, endpoint_id AS endpointId FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? AND endpoint_id NOT IN (${marks(skip.length)}) `
        + `ORDER BY next_attempt_at LIMIT ?${SKIP_LOCKED[sql.dialect]}`,
        [now, ...padded(skip), String(scan)],
      )).map((row) => ({ id: Number(row.id), endpointId: Number(row.endpointId) }));
      const ids = pick(due).map((delivery) => delivery.id);
      if (ids.length === 0) return { claimed: [], more: due.length === scan };
      await tx.run(`UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id IN (${marks(ids.length)})`, [now + leaseMs, ...padded(ids)]);
      const rows = await tx.all(`SELECT id, endpoint_id AS endpointId, type, payload, attempts, created_at AS createdAt FROM webhook_deliveries WHERE id IN (${marks(ids.length)})`, padded(ids));
      const claimed = rows.map((row): ClaimedDelivery => ({
        id: Number(row.id), endpointId: Number(row.endpointId), type: String(row.type), payload: String(row.payload),
        attempts: Number(row.attempts), createdAt: Number(row.createdAt),
      }));
      return { claimed, more: due.length === scan };
    })),

    targets: (ids: readonly number[]) => within(async () => (ids.length === 0 ? []
      : (await sql.all(`${ENDPOINT} WHERE id IN (${marks(ids.length)})`, padded(ids))).map((row): EndpointTarget => toEndpoint(row)))),

    /** Acknowledged: delivered, and its endpoint succeeds again. */
    delivered: (delivery: ClaimedDelivery, attempt: Attempt) => within(async () => {
      const now = clock.now();
      await sql.run('UPDATE webhook_deliveries SET status = \'delivered\', on_request = 0, attempts = attempts + 1, last_status_code = ?, last_error = NULL, last_duration_ms = ?, delivered_at = ? WHERE id = ?',
        [attempt.statusCode, attempt.durationMs, now, delivery.id]);
      await sql.run('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL', [delivery.endpointId]);
    }),

    /**
     * Not acknowledged: due again at `retryAt`, or failed for good (null). An endpoint that has failed
     * every attempt for `disableAfterMs` is disabled when a delivery of its fails for good.
     */
    undelivered: (delivery: ClaimedDelivery, attempt: Attempt, retryAt: number | null, disableAfterMs: number) => within(async () => {
      const now = clock.now();
      await sql.run(
        'UPDATE webhook_deliveries SET status = ?, on_request = 0, attempts = attempts + 1, last_status_code = ?, last_error = ?, last_duration_ms = ?, next_attempt_at = ? WHERE id = ?',
        [retryAt === null ? 'failed' : 'pending', attempt.statusCode, attempt.error?.slice(0, 255) ?? null, attempt.durationMs, retryAt ?? now, delivery.id],
      );
      await sql.run('UPDATE webhook_endpoints SET failing_since = ? WHERE id = ? AND failing_since IS NULL', [now, delivery.endpointId]);
      if (retryAt !== null) return false;
      const { affectedRows } = await sql.run(
        'UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ? WHERE id = ? AND enabled = 1 AND failing_since <= ?',
        [`Disabled by the service: no delivery acknowledged since ${new Date(now - disableAfterMs).toISOString().slice(0, 10)} or before`, delivery.endpointId, now - disableAfterMs],
      );
      return affectedRows > 0;
    }),

    /** A delivery whose endpoint may no longer receive (disabled, or its key revoked): it fails, unsent. */
    dropped: (delivery: ClaimedDelivery, reason: string) => within(async () => {
      await sql.run('UPDATE webhook_deliveries SET status = \'failed\', on_request = 0, last_error = ? WHERE id = ?', [reason, delivery.id]);
    }),

    /** Deliveries waiting to be sent (the retry queue), for the metrics. */
    pending: () => within(async () => Number((await sql.all('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = \'pending\'', []))[0]?.n ?? 0)),
  };
}

export type WebhookStore = ReturnType<typeof webhookStore>;
