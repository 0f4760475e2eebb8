import type { NodeType } from '../domain/global-ids.js';
import type { Scope } from '../domain/scopes.js';
import type { Context } from '../schema/builder.js';

/**
 * The records another subgraph may name and ask us for: each keyed by its integer `id` (what a client of
 * ours already holds) and by its global `nodeId` (what a Relay client holds), read through the request's
 * batched loaders, so a router's hundreds of representations are a query per type, not one each.
 */

export interface EntityFetch {
  /** What a restricted key needs to read the type, as the type's own root fields need it. */
  readonly scope: Scope;
  /** The record, or null when there is none: an entity we do not have is null, as federation expects. */
  readonly load: (context: Context, id: number) => Promise<{ id: number } | null>;
}

/** WebhookEndpoint is no entity: its records are a key's own, and no other subgraph has a reason to name one. */
export const ENTITIES = {
  Pet: { scope: 'pets:read', load: ({ loaders }, id) => loaders.pet.load(id) },
  Order: { scope: 'orders:read', load: ({ loaders }, id) => loaders.order.load(id) },
} as const satisfies Partial<Record<NodeType, EntityFetch>>;

export type EntityType = keyof typeof ENTITIES;

export const isEntityType = (name: unknown): name is EntityType => typeof name === 'string' && Object.hasOwn(ENTITIES, name);
