import type { NewOrderInput, OrderRecord, OrderStatus } from './order.js';
import type { NewPetInput, PetFieldsToSet, PetRecord, PetStatus } from './pet.js';

/** Every query the API makes about pets: one round trip each, or one transaction. */
export interface PetStore {
  /** In id order, after the id `after` when given. */
  list(query: { limit: number; status?: PetStatus; after?: number }): Promise<PetRecord[]>;
  get(id: number): Promise<PetRecord | null>;
  /** Many pets at once, for a batch of nested fields: one query. */
  getMany(ids: readonly number[]): Promise<PetRecord[]>;
  create(pet: NewPetInput): Promise<PetRecord>;
  /** Null when there is no such pet. */
  update(id: number, change: PetFieldsToSet): Promise<PetRecord | null>;
  /** The deleted record; null when there is no such pet; CONFLICT when it has orders. */
  delete(id: number): Promise<PetRecord | null>;
}

/** Orders, each change made atomically with its pet's. */
export interface OrderStore {
  /** In id order, after the id `after` when given. */
  list(query: { limit: number; status?: OrderStatus; after?: number }): Promise<OrderRecord[]>;
  get(id: number): Promise<OrderRecord | null>;
  /** Many orders at once, for a batch (`nodes`): one query. */
  getMany(ids: readonly number[]): Promise<OrderRecord[]>;
  /** The orders of many pets at once, id ascending: one query. */
  ofPets(petIds: readonly number[]): Promise<OrderRecord[]>;
  /** NOT_FOUND for an unknown pet, CONFLICT for one that is not available. */
  place(order: NewOrderInput): Promise<OrderChange>;
  /** NOT_FOUND for an unknown order, CONFLICT for a transition the table forbids. */
  update(id: number, status: OrderStatus): Promise<OrderChange>;
}

/** An order as a change left it, with its pet, in one transaction. */
export interface OrderChange {
  readonly order: OrderRecord;
  readonly pet: PetRecord;
}
