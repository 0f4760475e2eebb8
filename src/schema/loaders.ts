import DataLoader from 'dataloader';
import type { OrderRecord } from '../domain/order.js';
import type { PetRecord } from '../domain/pet.js';
import type { OrderStore, PetStore } from '../domain/stores.js';

/**
 * No cache: a subscription keeps its context for all its events, and a cached record would go stale.
 * Batching, the point here, needs none.
 */
const BATCH = { maxBatchSize: 100, cache: false } as const;

/**
 * One query per level of a response, never one per item: the nested fields of a request (Order.pet,
 * Pet.orders) queue their ids and are answered together. Made per request, each loader on first use,
 * so a request without nested fields pays nothing, and no cache outlives its request.
 */
export class Loaders {
  #pet?: DataLoader<number, PetRecord | null>;
  #ordersOfPet?: DataLoader<number, OrderRecord[]>;

  constructor(private readonly pets: PetStore, private readonly orders: OrderStore) {}

  get pet(): DataLoader<number, PetRecord | null> {
    return this.#pet ??= new DataLoader(async (ids) => {
      const found = new Map((await this.pets.getMany(ids)).map((p) => [p.id, p]));
      return ids.map((id) => found.get(id) ?? null);
    }, BATCH);
  }

  get ordersOfPet(): DataLoader<number, OrderRecord[]> {
    return this.#ordersOfPet ??= new DataLoader(async (petIds) => {
      const byPet = new Map<number, OrderRecord[]>(petIds.map((id) => [id, []]));
      for (const order of await this.orders.ofPets(petIds)) byPet.get(order.petId)?.push(order);
      return petIds.map((id) => byPet.get(id)!);
    }, BATCH);
  }
}
