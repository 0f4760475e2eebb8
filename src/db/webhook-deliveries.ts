import type { DataSource } from 'typeorm';
import type { Clock } from '../clock.js';
import { webhookBody } from '../domain/webhooks.js';
import { bounded } from './deadline.js';
import { eventPage } from './outbox.js';
import { INSERT_IGNORE, SKIP_LOCKED } from './dialect.js';
import { prepared } from './prepared.js';
import {
  ENDPOINT, marks, padded, toEndpoint, typesOf, type Attempt, type ClaimedDelivery, type EndpointTarget,
} from './webhook-rows.js';

/**
 * The delivery queue, as the dispatchers of every instance work it: events fanned out to the endpoints
 * that take them, due deliveries claimed, and how each attempt went. On the primary.
 */
export function webhookDeliveries(dataSource: DataSource, clock: Clock) {
  const sql = prepared(dataSource);
  const within = <T>(work: () => Promise<T>) => bounded(dataSource, work);
  return {
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
      for (let i = 0; i < rows.length; i += 100) {
        const chunk = rows.slice(i, i + 100);
        await tx.run(`${INSERT_IGNORE[sql.dialect]} INTO webhook_deliveries (endpoint_id, event_id, type, payload, status, attempts, next_attempt_at, created_at) VALUES `
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

    /** Deliveries waiting to be sent (the retry queue), and when the oldest was made, for the metrics. */
    pending: () => within(async () => {
      const [row] = await sql.all('SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM webhook_deliveries WHERE status = \'pending\'', []);
      return { count: Number(row?.n ?? 0), oldestAt: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest) };
    }),
  };
}

export type WebhookDeliveries = ReturnType<typeof webhookDeliveries>;
