import { pageSize } from '../domain/ids.js';
import { ON_REQUEST_PER_ENDPOINT } from '../domain/webhooks.js';
import { builder } from './builder.js';
import { listSize, needs } from './extensions.js';
import { limitArgument, PAGED_BY_LIMIT } from './lists.js';
import { CreatedEndpointRef, DeliveryRef, ENDPOINT_ID, EndpointChange, EndpointRef, NewEndpoint, hearable, ownerOf } from './webhook-types.js';

/**
 * Webhooks, managed by the key that owns them: its endpoints (each event type it takes sent to a URL,
 * signed with the endpoint's secret), their deliveries, a test event and a redelivery.
 */
builder.queryField('webhookEndpoints', (t) => t.field({
  type: [EndpointRef],
  // As many as WEBHOOKS_PER_KEY allows at most.
  extensions: { ...needs('webhooks'), ...listSize({ assumedSize: 100 }) },
  description: 'Your key\'s webhook endpoints, oldest first.',
  resolve: (_root, _args, context) => context.webhooks.list(ownerOf(context)),
}));

builder.queryField('webhookEndpoint', (t) => t.field({
  type: EndpointRef,
  nullable: true,
  extensions: needs('webhooks'),
  description: 'One of your key\'s webhook endpoints.',
  args: { endpointId: t.arg(ENDPOINT_ID) },
  resolve: (_root, args, context) => context.webhooks.get(ownerOf(context), args.endpointId),
}));

builder.queryField('webhookDeliveries', (t) => t.field({
  type: [DeliveryRef],
  extensions: { ...needs('webhooks'), ...PAGED_BY_LIMIT },
  description: 'An endpoint\'s most recent deliveries, newest first.',
  args: { endpointId: t.arg(ENDPOINT_ID), limit: t.arg.int(limitArgument('deliveries')) },
  resolve: (_root, args, context) => context.webhooks.deliveries(ownerOf(context), args.endpointId, pageSize(args.limit)),
}));

builder.mutationField('createWebhookEndpoint', (t) => t.field({
  type: CreatedEndpointRef,
  extensions: needs('webhooks'),
  description: 'Send your key\'s events to a URL from now on. Answers with the signing secret, shown this once (a retry with the same '
    + '`Idempotency-Key` gets the same answer, read from the endpoint; 409 CONFLICT once it is deleted). '
    + 'A key has at most WEBHOOKS_PER_KEY endpoints (10 by default; past that 409 CONFLICT).',
  args: { input: t.arg({ type: NewEndpoint, required: true }) },
  resolve: async (_root, { input }, context) => {
    const made = await context.webhooks.create(ownerOf(context), { url: input.url, types: hearable(context, input.types) });
    context.showsSecret?.(made.secret, { kind: 'webhookEndpoint', id: made.id });
    return made;
  },
}));

builder.mutationField('updateWebhookEndpoint', (t) => t.field({
  type: EndpointRef,
  extensions: needs('webhooks'),
  description: 'Change an endpoint\'s URL or event types, or disable and enable it.',
  args: { endpointId: t.arg(ENDPOINT_ID), input: t.arg({ type: EndpointChange, required: true }) },
  resolve: (_root, args, context) => context.webhooks.update(ownerOf(context), args.endpointId, {
    url: args.input.url, types: args.input.types === undefined ? undefined : hearable(context, args.input.types), enabled: args.input.enabled,
  }),
}));

builder.mutationField('deleteWebhookEndpoint', (t) => t.field({
  type: EndpointRef,
  extensions: needs('webhooks'),
  description: 'Stop sending to an endpoint, and forget it and its deliveries.',
  args: { endpointId: t.arg(ENDPOINT_ID) },
  resolve: (_root, args, context) => context.webhooks.delete(ownerOf(context), args.endpointId),
}));

builder.mutationField('testWebhookEndpoint', (t) => t.field({
  type: DeliveryRef,
  extensions: needs('webhooks'),
  description: 'Send a `webhook.test` event to an endpoint now (retried like any delivery); see how it went in its deliveries. An endpoint has at most '
    + `${ON_REQUEST_PER_ENDPOINT} test events and redeliveries waiting or being sent: the next is \`CONFLICT\` until one has been attempted.`,
  args: { endpointId: t.arg(ENDPOINT_ID) },
  resolve: (_root, args, context) => context.webhooks.test(ownerOf(context), args.endpointId),
}));

builder.mutationField('redeliverWebhook', (t) => t.field({
  type: DeliveryRef,
  extensions: needs('webhooks'),
  description: 'Send one of an endpoint\'s deliveries again now, whatever became of it (same `webhook-id`: receivers de-duplicate by it). Counts with the '
    + `endpoint's test events: at most ${ON_REQUEST_PER_ENDPOINT} waiting or being sent, the next is \`CONFLICT\`; one already waiting stays as it is.`,
  args: { endpointId: t.arg(ENDPOINT_ID), deliveryId: t.arg({ type: 'SafeInt', required: true, description: 'The identifier of the delivery.' }) },
  resolve: (_root, args, context) => context.webhooks.redeliver(ownerOf(context), args.endpointId, args.deliveryId),
}));
