import { CreatePets1763683200000 } from './1763683200000-CreatePets.js';
import { CreateApiKeys1763683300000 } from './1763683300000-CreateApiKeys.js';
import { CreateOrders1763856000000 } from './1763856000000-CreateOrders.js';
import { CreateServiceSecrets1763942400000 } from './1763942400000-CreateServiceSecrets.js';
import { CreateIdempotencyRecords1764028800000 } from './1764028800000-CreateIdempotencyRecords.js';
import { KeyLifecycle1764115200000 } from './1764115200000-KeyLifecycle.js';
import { CreateEvents1764201600000 } from './1764201600000-CreateEvents.js';
import { EventsPrunedById1764288000000 } from './1764288000000-EventsPrunedById.js';
import { CreateWebhooks1764374400000 } from './1764374400000-CreateWebhooks.js';
import { KeyScopesAndDeprecatedCalls1764460800000 } from './1764460800000-KeyScopesAndDeprecatedCalls.js';
import { EventsByType1764547200000 } from './1764547200000-EventsByType.js';
import { WebhookDeliveriesOnRequest1764550800000 } from './1764550800000-WebhookDeliveriesOnRequest.js';
import { CreateIdempotencyFences1764633600000 } from './1764633600000-CreateIdempotencyFences.js';
import { KeyDocuments1764720000000 } from './1764720000000-KeyDocuments.js';
import { CreateAdminAudit1764806400000 } from './1764806400000-CreateAdminAudit.js';
import { CreateTokenSubjects1764892800000 } from './1764892800000-CreateTokenSubjects.js';

/** Every migration, oldest first. A database that has run one not listed here is newer than this build. */
export const MIGRATIONS = [
  CreatePets1763683200000, CreateApiKeys1763683300000, CreateOrders1763856000000, CreateServiceSecrets1763942400000,
  CreateIdempotencyRecords1764028800000, KeyLifecycle1764115200000, CreateEvents1764201600000,
  EventsPrunedById1764288000000, CreateWebhooks1764374400000, KeyScopesAndDeprecatedCalls1764460800000,
  EventsByType1764547200000,
  WebhookDeliveriesOnRequest1764550800000, CreateIdempotencyFences1764633600000, KeyDocuments1764720000000,
  CreateAdminAudit1764806400000, CreateTokenSubjects1764892800000,
];
