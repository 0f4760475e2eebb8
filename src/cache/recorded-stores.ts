import type { NewOrderInput, OrderStatus } from '../domain/order.js';
import type { NewPetInput, PetFieldsToSet, PetStatus } from '../domain/pet.js';
import type { OrderStore, PetStore } from '../domain/stores.js';
import { pageRead, type Read } from './reads.js';

/** What a request's resolvers did with the records: what they read, and whether they changed any. */
export class Recording {
  readonly reads: Read[] = [];
  wrote = false;
}

const point = (kind: Read['kind'], id: number): Read => ({ kind, from: id, to: id });

/** A request's pets, each read noted in its recording (what its answer depends on), each change too. */
export class RecordedPets implements PetStore {
  constructor(private readonly store: PetStore, private readonly recording: Recording) {}

  async list(query: { limit: number; status?: PetStatus; after?: number }) {
    const rows = await this.store.list(query);
    this.recording.reads.push(pageRead('pet', query.after, query.limit, rows));
    return rows;
  }

  get(id: number) {
    this.recording.reads.push(point('pet', id));
    return this.store.get(id);
  }

  getMany(ids: readonly number[]) {
    for (const id of ids) this.recording.reads.push(point('pet', id));
    return this.store.getMany(ids);
  }

  create(pet: NewPetInput) {
    this.recording.wrote = true;
    return this.store.create(pet);
  }

  update(id: number, change: PetFieldsToSet) {
    this.recording.wrote = true;
    return this.store.update(id, change);
  }

  delete(id: number) {
    this.recording.wrote = true;
    return this.store.delete(id);
  }
}

/** A request's orders, noted as its pets are. */
export class RecordedOrders implements OrderStore {
  constructor(private readonly store: OrderStore, private readonly recording: Recording) {}

  async list(query: { limit: number; status?: OrderStatus; after?: number }) {
    const rows = await this.store.list(query);
    this.recording.reads.push(pageRead('order', query.after, query.limit, rows));
    return rows;
  }

  get(id: number) {
    this.recording.reads.push(point('order', id));
    return this.store.get(id);
  }

  getMany(ids: readonly number[]) {
    for (const id of ids) this.recording.reads.push(point('order', id));
    return this.store.getMany(ids);
  }

  ofPets(petIds: readonly number[]) {
    for (const id of petIds) this.recording.reads.push(point('ordersOfPet', id));
    return this.store.ofPets(petIds);
  }

  place(order: NewOrderInput) {
    this.recording.wrote = true;
    return this.store.place(order);
  }

  update(id: number, status: OrderStatus) {
    this.recording.wrote = true;
    return this.store.update(id, status);
  }
}
