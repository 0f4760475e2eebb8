import { appError } from '../errors.js';
import { EVENT_TYPES, isEventType, type EventType } from './events.js';

/** Where a key's events are sent, as its owner sees it (the signing secret is shown once, at creation). */
export interface WebhookEndpoint {
  readonly id: number;
  readonly url: string;
  /** The event types it takes; empty for every type. */
  readonly types: readonly EventType[];
  readonly enabled: boolean;
  /** Why the service disabled it (it failed for days); null when enabled, or disabled by its owner. */
  readonly disabledReason: string | null;
  /** RFC 3339. */
  readonly createdAt: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event's delivery to one endpoint, and how its attempts went. */
export interface WebhookDelivery {
  readonly id: number;
  /** The event sent; null for a test event. */
  readonly eventId: number | null;
  readonly type: string;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  /** The last attempt's HTTP status; null before any, or when no response came. */
  readonly lastStatusCode: number | null;
  /** Why the last attempt failed without a status (a timeout, a refused address, ...). */
  readonly lastError: string | null;
  readonly lastDurationMs: number | null;
  /** When the next attempt is due (RFC 3339); null once delivered or failed. */
  readonly nextAttemptAt: string | null;
  readonly createdAt: string;
  readonly deliveredAt: string | null;
}

/** A key's endpoints and their deliveries: every call is the key's own (another key's endpoint is NOT_FOUND). */
export interface WebhookAdmin {
  list(keyId: number): Promise<WebhookEndpoint[]>;
  get(keyId: number, id: number): Promise<WebhookEndpoint>;
  /** With its signing secret, which is never shown again. */
  create(keyId: number, input: { url: string; types?: readonly EventType[] | null }): Promise<WebhookEndpoint & { secret: string }>;
  update(keyId: number, id: number, change: { url?: string | null; types?: readonly EventType[] | null; enabled?: boolean | null }): Promise<WebhookEndpoint>;
  delete(keyId: number, id: number): Promise<WebhookEndpoint>;
  /** Sends a `webhook.test` event now (as a delivery, with its retries). */
  test(keyId: number, id: number): Promise<WebhookDelivery>;
  /** Newest first. */
  deliveries(keyId: number, id: number, limit: number): Promise<WebhookDelivery[]>;
  /** Sends a delivery again now, whatever became of it. */
  redeliver(keyId: number, id: number, deliveryId: number): Promise<WebhookDelivery>;
}

/** The longest webhook URL, normalized: the size of `webhook_endpoints.url`. */
export const WEBHOOK_URL_MAX = 2_048;

/**
 * A webhook URL written out whole: an http(s) scheme in any case, `//`, an authority with no user
 * (`@`), then a path or query, without white space, control characters, backslashes or a fragment.
 * The URL parser alone would mend more (strip spaces, read `https:host` or `\\` as `//`); checkUrl holds
 * every URL to this too, so that the OpenAPI document's pattern refuses nothing the service takes.
 */
const URL_SHAPE = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s\\u0000-\\u001F\\u007F-\\u009F/?#@\\\\]+(?:[/?][^\\s\\u0000-\\u001F\\u007F-\\u009F#\\\\]*)?$';
const URL_SHAPE_PATTERN = new RegExp(URL_SHAPE, 'u');

/**
 * What checkUrl enforces that JSON Schema can state, for the OpenAPI document (the rest, where the host
 * points and whether http is allowed, is its description). `uri` is the form it is stored in: a character
 * RFC 3986 leaves out (non-ASCII, `"`, `<`, `{`, ...) is taken too, percent-encoded, as the description says.
 */
export const WEBHOOK_URL_RULES = { minLength: 1, maxLength: WEBHOOK_URL_MAX, format: 'uri', pattern: URL_SHAPE } as const;

/** What checkTypes enforces that JSON Schema can state: no type twice, so at most every type once; null for every type. */
export const WEBHOOK_TYPES_RULES = { uniqueItems: true, maxItems: EVENT_TYPES.length, nullable: true } as const;

/** The event types an endpoint takes: each known, none twice; none (or null) for every type. */
export function checkTypes(types: readonly string[] | null | undefined): EventType[] {
  const given = types ?? [];
  for (const type of given) {
    if (!isEventType(type)) {
      throw appError('BAD_REQUEST', `"types" holds ${JSON.stringify(type)}, which is no event type: use ${EVENT_TYPES.join(', ')}`);
    }
  }
  if (new Set(given).size !== given.length) throw appError('BAD_REQUEST', '"types" names an event type twice');
  return [...given] as EventType[];
}

/**
 * A webhook URL as given: absolute, `https` (or `http` where allowed), a host name or address, no user
 * or password, no fragment, at most WEBHOOK_URL_MAX characters as given and as stored (its `href`, all
 * ASCII: the column holds WEBHOOK_URL_MAX). Where it points is checked apart.
 */
export function checkUrl(text: string, allowHttp: boolean): URL {
  if (text.length > WEBHOOK_URL_MAX) throw appError('BAD_REQUEST', `"url" must be at most ${WEBHOOK_URL_MAX} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw appError('BAD_REQUEST', '"url" must be an absolute URL, such as https://example.com/hooks');
  }
  const schemes = allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw appError('BAD_REQUEST', `"url" must use ${allowHttp ? 'https or http' : 'https (http is not allowed on this service)'}, got ${url.protocol.slice(0, -1)}`);
  }
  if (url.username || url.password) throw appError('BAD_REQUEST', '"url" must not carry a user name or password: authenticate by the signature');
  if (url.hash) throw appError('BAD_REQUEST', '"url" must not have a fragment');
  if (!url.hostname) throw appError('BAD_REQUEST', '"url" must name a host');
  if (!URL_SHAPE_PATTERN.test(text)) {
    throw appError('BAD_REQUEST', '"url" must be written out whole, as https://host/path?query: "//" after the scheme, '
      + 'no white space, control characters, backslashes or "#"');
  }
  // What is stored is the normalized URL, which percent-encoding can make six times as long as the input.
  if (url.href.length > WEBHOOK_URL_MAX) {
    throw appError('BAD_REQUEST', `"url" must be at most ${WEBHOOK_URL_MAX} characters once normalized (percent-encoded), and is ${url.href.length}`);
  }
  return url;
}

/**
 * When each retry is due after a failed attempt (ms): about three days in all, then the delivery fails.
 * Each is spread ±20% (jitter), so that deliveries that failed together do not come back together.
 */
export const RETRY_SCHEDULE_MS = [5, 30, 120, 600, 1_800, 3_600, 7_200, 14_400, 28_800, 43_200, 86_400, 86_400].map((s) => s * 1_000);

/** An endpoint that has failed every attempt this long is disabled when another delivery fails for good. */
export const DISABLE_AFTER_MS = 3 * 86_400_000;

/**
 * Test events and redeliveries one endpoint may have waiting or being sent: each is attempted at the
 * endpoint's own pace, so more would only queue (and a silent endpoint's would wait a timeout each).
 */
export const ON_REQUEST_PER_ENDPOINT = 5;

export const endpointNotFound = (id: number) => appError('NOT_FOUND', `Webhook endpoint ${id} not found`);

/** The body of a webhook, as Standard Webhooks has it: the type, the time, and the event. */
export function webhookBody(type: string, occurredAt: number, data: object): string {
  return JSON.stringify({ type, timestamp: new Date(occurredAt).toISOString(), data });
}
