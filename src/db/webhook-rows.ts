/** The webhook tables' rows as the stores read them, shared by the endpoints' store and the delivery queue. */
import type { EventType } from '../domain/events.js';
import type { DeliveryStatus, WebhookDelivery, WebhookEndpoint } from '../domain/webhooks.js';
import type { Row } from './prepared.js';

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

export const ENDPOINT = 'SELECT id, key_id AS keyId, url, types, secret, enabled, disabled_reason AS disabledReason, created_at AS createdAt FROM webhook_endpoints';
export const DELIVERY = 'SELECT id, event_id AS eventId, type, status, attempts, next_attempt_at AS nextAttemptAt, last_status_code AS lastStatusCode, '
  + 'last_error AS lastError, last_duration_ms AS lastDurationMs, created_at AS createdAt, delivered_at AS deliveredAt FROM webhook_deliveries';

/**
 * `?` marks for a list of `n` ids, rounded up to a power of two (padded with 0, an id never given): a few
 * statement texts, each prepared once, rather than one per length.
 */
const listLength = (n: number) => 2 ** Math.ceil(Math.log2(Math.max(1, n)));
export const marks = (n: number) => Array<string>(listLength(n)).fill('?').join(', ');
export const padded = (ids: readonly number[]) => [...ids, ...Array<number>(listLength(ids.length) - ids.length).fill(0)];

export const iso = (ms: unknown) => (ms == null ? null : new Date(Number(ms)).toISOString());
export const typesOf = (text: unknown) => (String(text) === '' ? [] : String(text).split(',')) as EventType[];

export const toEndpoint = (row: Row): WebhookEndpoint & { keyId: number; secret: string } => ({
  id: Number(row.id), keyId: Number(row.keyId), url: String(row.url), types: typesOf(row.types), secret: String(row.secret),
  enabled: Boolean(Number(row.enabled)), disabledReason: row.disabledReason == null ? null : String(row.disabledReason), createdAt: iso(row.createdAt)!,
});
export const publicEndpoint = ({ keyId: _k, secret: _s, ...endpoint }: ReturnType<typeof toEndpoint>): WebhookEndpoint => endpoint;

export const toDelivery = (row: Row): WebhookDelivery => {
  const status = row.status as DeliveryStatus;
  return {
    id: Number(row.id), eventId: row.eventId == null ? null : Number(row.eventId), type: String(row.type), status,
    attempts: Number(row.attempts), lastStatusCode: row.lastStatusCode == null ? null : Number(row.lastStatusCode),
    lastError: row.lastError == null ? null : String(row.lastError), lastDurationMs: row.lastDurationMs == null ? null : Number(row.lastDurationMs),
    nextAttemptAt: status === 'pending' ? iso(row.nextAttemptAt) : null, createdAt: iso(row.createdAt)!, deliveredAt: iso(row.deliveredAt),
  };
};
