import { EVENT_TYPES, isEventType, type EventType } from '../domain/events.js';
import { missingToHear } from '../domain/scopes.js';
import type { DeliveryStatus, WebhookDelivery, WebhookEndpoint } from '../domain/webhooks.js';
import { WEBHOOK_TYPES_RULES, WEBHOOK_URL_MAX, WEBHOOK_URL_RULES } from '../domain/webhooks.js';
import { appError } from '../errors.js';
import { builder, type Context } from './builder.js';
import { listSize, valueRules } from './extensions.js';
import { NodeRef } from './node-interface.js';
import { statusEnum } from './status-enum.js';

/** The webhook types of the schema (endpoints, deliveries, their inputs), and who may see them: webhooks.ts roots them. */

/** The calling key: every endpoint belongs to one, and is another key's NOT_FOUND. */
export const ownerOf = (context: Context): number => {
  const keyId = context.keyId();
  if (keyId === undefined) throw appError('UNAUTHENTICATED', 'Webhooks belong to a key: send one');
  return keyId;
};

/**
 * The event types an endpoint of this key may hear: a restricted key's webhooks carry only the records
 * it may read (403 FORBIDDEN naming the scope otherwise). Unknown types are the domain's to refuse.
 */
export const hearable = ({ scopes }: Context, types: readonly string[] | null | undefined) => {
  const known = (types ?? []).filter(isEventType);
  if (!scopes || known.length !== (types ?? []).length) return types as EventType[] | null | undefined;
  const [missing] = missingToHear(known, scopes);
  if (missing) {
    throw appError('FORBIDDEN', `This key may not hear ${missing.type} events: it needs the ${missing.scope} scope; name in "types" only the events of records it may read`);
  }
  return types as EventType[] | null | undefined;
};

/** An endpoint's types are known event types, each at most once. */
const EACH_TYPE = listSize({ assumedSize: EVENT_TYPES.length });

const TYPES_DESCRIPTION = 'The event types sent to it; empty (or omitted) for every type. '
  + 'A restricted key\'s endpoint hears only the events of records it may read (`pets:read`, `orders:read`).';

/** The descriptions of an endpoint's fields. */
const ENDPOINT = {
  id: 'Unique identifier, assigned by the service: the `endpointId` of the other webhook operations.',
  url: 'An https URL (http where the service allows it) at a public address.',
  enabled: 'Whether events are sent to it. The service disables one that failed for days, and says why.',
  disabledReason: 'Why the service disabled it; null otherwise.',
  createdAt: 'When it was created.',
};

type Schema = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;

/** An endpoint's fields, as WebhookEndpoint and CreatedWebhookEndpoint both have them. */
const endpointFields = (t: PothosSchemaTypes.ObjectFieldBuilder<Schema, WebhookEndpoint>) => ({
  id: t.expose('id', { type: 'SafeInt', description: ENDPOINT.id }),
  url: t.exposeString('url', { description: ENDPOINT.url }),
  types: t.expose('types', { type: ['EventType'], description: TYPES_DESCRIPTION, extensions: EACH_TYPE }),
  enabled: t.exposeBoolean('enabled', { description: ENDPOINT.enabled }),
  disabledReason: t.exposeString('disabledReason', { nullable: true, description: ENDPOINT.disabledReason }),
  createdAt: t.expose('createdAt', { type: 'DateTime', description: ENDPOINT.createdAt }),
});

export const EndpointRef = builder.objectRef<WebhookEndpoint>('WebhookEndpoint').implement({
  description: 'Where your key\'s events are sent: a POST of each event to the URL, signed as Standard Webhooks says.',
  // CreatedWebhookEndpoint is the same record with its secret: as a Node of its own type, a Relay store
  // would hold one global id under two types.
  interfaces: [NodeRef],
  fields: endpointFields,
});

export const CreatedEndpointRef = builder.objectRef<WebhookEndpoint & { secret: string }>('CreatedWebhookEndpoint').implement({
  description: 'A new endpoint, with its signing secret: shown this once, keep it to verify signatures.',
  fields: (t) => ({
    ...endpointFields(t),
    secret: t.exposeString('secret', {
      description: 'The Standard Webhooks signing secret (`whsec_…`); never shown again, but to a retry of this creation with its `Idempotency-Key` '
        + '(24 h, while the endpoint exists).',
    }),
  }),
});

const DeliveryStatusEnum = statusEnum<DeliveryStatus>('DeliveryStatus', 'Where a delivery stands.', {
  pending: 'Waiting for its next attempt (or being sent).',
  delivered: 'Acknowledged by a 2xx.',
  failed: 'Given up on: every retry failed (about three days), or its endpoint was disabled or its key ended.',
});

export const DeliveryRef = builder.objectRef<WebhookDelivery>('WebhookDelivery').implement({
  description: 'One event sent to one endpoint, and how its attempts went. Its `webhook-id` header is `msg_` and its id.',
  fields: (t) => ({
    id: t.expose('id', { type: 'SafeInt', description: 'Unique identifier, assigned by the service: the `deliveryId` of a redelivery.' }),
    eventId: t.expose('eventId', { type: 'SafeInt', nullable: true, description: 'The event sent (the feed\'s id); null for a test event.' }),
    type: t.exposeString('type', { description: 'The event\'s type, or `webhook.test`.' }),
    status: t.expose('status', { type: DeliveryStatusEnum, description: 'Where the delivery stands.' }),
    attempts: t.exposeInt('attempts', { description: 'Attempts made so far.' }),
    lastStatusCode: t.exposeInt('lastStatusCode', { nullable: true, description: 'The last answer\'s HTTP status; null before any attempt, or when none came.' }),
    lastError: t.exposeString('lastError', { nullable: true, description: 'Why the last attempt failed without a status (a timeout, a refused address); null otherwise.' }),
    lastDurationMs: t.exposeInt('lastDurationMs', { nullable: true, description: 'How long the last attempt took, in milliseconds; null before any.' }),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true, description: 'When it is tried next, while pending; null once delivered or failed.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the delivery was made (the event happened, or the test was asked for).' }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true, description: 'When a 2xx acknowledged it; null until then.' }),
  }),
});

/** The fields NewWebhookEndpoint and WebhookEndpointChange share: described, and their limits stated, the same in both. */
const URL_INPUT = {
  description: `An absolute https URL (http where the service allows it) at a public address, no user or password, no fragment; at most `
    + `${WEBHOOK_URL_MAX} characters as given and as stored, normalized (each UTF-8 byte of a non-ASCII character percent-encoded as three).`,
  extensions: valueRules(WEBHOOK_URL_RULES),
};
const TYPES_INPUT = { type: ['EventType'] as ['EventType'], description: TYPES_DESCRIPTION, extensions: valueRules(WEBHOOK_TYPES_RULES) };

export const NewEndpoint = builder.inputType('NewWebhookEndpoint', {
  description: 'An endpoint to send your key\'s events to.',
  fields: (t) => ({
    url: t.string({ ...URL_INPUT, required: true }),
    types: t.field(TYPES_INPUT),
  }),
});

export const EndpointChange = builder.inputType('WebhookEndpointChange', {
  description: 'What to change of an endpoint: at least one field. Enabling one the service disabled starts it afresh.',
  fields: (t) => ({
    url: t.string(URL_INPUT),
    types: t.field(TYPES_INPUT),
    enabled: t.boolean({ description: `${ENDPOINT.enabled} Enabling it again starts it afresh.` }),
  }),
});

export const ENDPOINT_ID = { type: 'SafeInt', required: true, description: 'The identifier of the endpoint.' } as const;
