import DataLoader from 'dataloader';
import type { OrderRecord } from '../domain/order.js';
import type { PetRecord } from '../domain/pet.js';
import type { OrderStore, PetStore } from '../domain/stores.js';
import { endpointNotFound, type WebhookAdmin, type WebhookEndpoint } from '../domain/webhooks.js';

/**
 * No cache: a subscription keeps its context for all its events, and a cached record would go stale.
 * Batching, the point here, needs none.
 */
const BATCH = { maxBatchSize: 100, cache: false } as const;

/** Records by id, in the order asked, null where there is none. */
const byId = <T extends { id: number }>(ids: readonly number[], found: readonly T[]) => {
  const map = new Map(found.map((record) => [record.id, record]));
  return ids.map((id) => map.get(id) ?? null);
};

/**
 * One query per level of a response, never one per item: the nested fields of a request (Order.pet,
 * Pet.orders) and the items of `nodes` queue their ids and are answered together. Made per request, each
 * loader on first use, so a request without nested fields pays nothing, and no cache outlives its request.
 */
export class Loaders {
  #pet?: DataLoader<number, PetRecord | null>;
  #order?: DataLoader<number, OrderRecord | null>;
  #ordersOfPet?: DataLoader<number, OrderRecord[]>;
  #endpoint?: DataLoader<number, WebhookEndpoint>;

  constructor(private readonly pets: PetStore, private readonly orders: OrderStore) {}

  get pet(): DataLoader<number, PetRecord | null> {
    return this.#pet ??= new DataLoader(async (ids) => byId(ids, await this.pets.getMany(ids)), BATCH);
  }

  get order(): DataLoader<number, OrderRecord | null> {
    return this.#order ??= new DataLoader(async (ids) => byId(ids, await this.orders.getMany(ids)), BATCH);
  }

  get ordersOfPet(): DataLoader<number, OrderRecord[]> {
    return this.#ordersOfPet ??= new DataLoader(async (petIds) => {
      const byPet = new Map<number, OrderRecord[]>(petIds.map((id) => [id, []]));
      for (const order of await this.orders.ofPets(petIds)) byPet.get(order.petId)?.push(order);
      return petIds.map((id) => byPet.get(id)!);
    }, BATCH);
  }

  /**
   * One key's endpoints: read together, as the key's list (WEBHOOKS_PER_KEY bounds it), and another key's
   * endpoint NOT_FOUND as `webhookEndpoint` answers it. A request has one key, so one loader serves it.
   */
  endpointOf(webhooks: WebhookAdmin, keyId: number): DataLoader<number, WebhookEndpoint> {
    // DataLoader takes an Error in a key's place as that key's rejection.
    return this.#endpoint ??= new DataLoader<number, WebhookEndpoint>(async (ids) => {
      const found = byId(ids, await webhooks.list(keyId));
      return found.map((endpoint, i) => endpoint ?? endpointNotFound(ids[i]!));
    }, BATCH);
  }
}
