import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { WebhookConfig } from '../config.js';
import type { WebhookEndpoints } from '../db/webhook-endpoints.js';
import { checkTypes, checkUrl, ON_REQUEST_PER_ENDPOINT, type WebhookAdmin, webhookBody } from '../domain/webhooks.js';
import { appError } from '../errors.js';
import { checkTarget } from './targets.js';

/** What the settings allow of an endpoint: its scheme, where it may point, how many a key may have. */
export type WebhookPolicy = Pick<WebhookConfig, 'allowHttp' | 'allowPrivate' | 'perKey'>;

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * Endpoints managed by their key's owner: each URL checked as given (scheme, no credentials) and where it
 * points (no private, loopback, link-local or metadata address) before it is stored. `woken` hears of an
 * endpoint made or changed, and of a delivery made due now (a test event, a redelivery), so that the
 * dispatcher knows at once.
 */
export function webhookAdmin(store: WebhookEndpoints, policy: WebhookPolicy, clock: Clock, woken: () => void): WebhookAdmin {
  const target = async (text: string) => {
    const url = checkUrl(text, policy.allowHttp);
    if (!policy.allowPrivate) await checkTarget(url);
    return url.href;
  };
  const noNull = (field: string) => appError('BAD_REQUEST', `"${field}" cannot be removed: send a new value or leave it out`);
  return {
    list: (keyId) => store.list(keyId),
    get: (keyId, id) => store.get(keyId, id),
    async create(keyId, input) {
      const url = await target(input.url);
      const secret = newSecret();
      const made = await store.create(keyId, { url, types: checkTypes(input.types), secret }, policy.perKey);
      woken();
      return { ...made, secret };
    },
    async update(keyId, id, change) {
      const given = Object.entries(change).filter(([, value]) => value !== undefined);
      if (given.length === 0) throw appError('BAD_REQUEST', 'The change is empty: send at least one of "url", "types", "enabled"');
      if (change.url === null) throw noNull('url');
      if (change.enabled === null) throw noNull('enabled');
      const changed = await store.update(keyId, id, {
        url: change.url === undefined ? undefined : await target(change.url),
        // null or [] alike: every type.
        types: change.types === undefined ? undefined : checkTypes(change.types),
        enabled: change.enabled ?? undefined,
      });
      woken();
      return changed;
    },
    delete: (keyId, id) => store.delete(keyId, id),
    async test(keyId, id) {
      const now = clock.now();
      const delivery = await store.enqueue(keyId, id, 'webhook.test', webhookBody('webhook.test', now, { endpointId: id, occurredAt: new Date(now).toISOString() }), ON_REQUEST_PER_ENDPOINT);
      woken();
      return delivery;
    },
    deliveries: (keyId, id, limit) => store.deliveries(keyId, id, limit),
    async redeliver(keyId, id, deliveryId) {
      const delivery = await store.redeliver(keyId, id, deliveryId, ON_REQUEST_PER_ENDPOINT);
      woken();
      return delivery;
    },
  };
}
