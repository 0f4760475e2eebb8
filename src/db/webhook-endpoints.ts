import type { DataSource } from 'typeorm';
import type { Clock } from '../clock.js';
import type { EventType } from '../domain/events.js';
import { endpointNotFound } from '../domain/webhooks.js';
import { appError } from '../errors.js';
import { bounded } from './deadline.js';
import { FOR_UPDATE } from './dialect.js';
import { prepared, type Statements } from './prepared.js';
import { DELIVERY, ENDPOINT, publicEndpoint, toDelivery, toEndpoint } from './webhook-rows.js';

/**
 * A key's webhook endpoints as their owner manages them: made, read, changed, deleted, tested, their
 * deliveries listed and sent again. On the primary (every call here writes, or must see the latest writes).
 */
export function webhookEndpoints(dataSource: DataSource, clock: Clock) {
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
      await tx.all(`SELECT id FROM api_keys WHERE id = ?${FOR_UPDATE[sql.dialect]}`, [keyId]);
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
  };
}

export type WebhookEndpoints = ReturnType<typeof webhookEndpoints>;
