import type { EventFeed } from '../domain/events.js';
import type { NewOrderInput, OrderStatus } from '../domain/order.js';
import type { NewPetInput, PetFieldsToSet, PetStatus } from '../domain/pet.js';
import type { OrderStore, PetStore } from '../domain/stores.js';
import type { WebhookAdmin } from '../domain/webhooks.js';
import { orderTouches, pageRead, petTouches, type Read, type Touch } from './reads.js';

/**
 * What a request's resolvers did: what they read, whether they changed anything, whether they asked who
 * the caller is (then the answer is that caller's alone: another key of the same scopes may be answered
 * otherwise), and whether they read what no outbox event announces (then nothing would tell the cache it
 * changed, and the answer is never kept).
 */
export class Recording {
  readonly reads: Read[] = [];
  wrote = false;
  /** The identity of the caller the answer was made for, when a resolver asked for it. */
  caller: string | undefined;
  /** What it read that the outbox does not announce. */
  unannounced: string | undefined;
  /** The outbox ids its committed writes' events were given. */
  readonly events: number[] = [];
  /** What its writes changed, as their events will say: this instance drops what they reached at once. */
  readonly changed: Touch[] = [];

  /** A write committed, its events at `ids`. */
  readonly committed = (ids: readonly number[]): void => {
    this.events.push(...ids);
  };

  /** The highest of its events' ids: every instance whose reader has passed it has heard of them all. */
  get through(): number | undefined {
    return this.events.length > 0 ? Math.max(...this.events) : undefined;
  }
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

  async create(pet: NewPetInput) {
    this.recording.wrote = true;
    return this.changed(await this.store.create(pet));
  }

  async update(id: number, change: PetFieldsToSet) {
    this.recording.wrote = true;
    return this.changed(await this.store.update(id, change));
  }

  async delete(id: number) {
    this.recording.wrote = true;
    return this.changed(await this.store.delete(id));
  }

  private changed<P extends { id: number } | null>(pet: P): P {
    if (pet) this.recording.changed.push(...petTouches(pet));
    return pet;
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

  async place(order: NewOrderInput) {
    this.recording.wrote = true;
    return this.changed(await this.store.place(order));
  }

  async update(id: number, status: OrderStatus) {
    this.recording.wrote = true;
    return this.changed(await this.store.update(id, status));
  }

  /** An order's change moves its pet too (the events say both). */
  private changed<C extends { order: { id: number; petId: number }; pet: { id: number } }>(change: C): C {
    this.recording.changed.push(...orderTouches(change.order), ...petTouches(change.pet));
    return change;
  }
}

/**
 * A request's webhook endpoints and deliveries, whose reads no outbox event announces (an endpoint changes
 * on one instance, and the others never hear of it): an answer that read them is never kept. They belong
 * to a key: reading them asked who the caller is (the context's keyId), which the recording notes too.
 */
export class RecordedWebhooks implements WebhookAdmin {
  constructor(private readonly admin: WebhookAdmin, private readonly recording: Recording) {}

  list(keyId: number) {
    this.recording.unannounced = 'webhook endpoints';
    return this.admin.list(keyId);
  }

  get(keyId: number, id: number) {
    this.recording.unannounced = 'webhook endpoints';
    return this.admin.get(keyId, id);
  }

  deliveries(keyId: number, id: number, limit: number) {
    this.recording.unannounced = 'webhook deliveries';
    return this.admin.deliveries(keyId, id, limit);
  }

  create(...args: Parameters<WebhookAdmin['create']>) { return this.admin.create(...args); }
  update(...args: Parameters<WebhookAdmin['update']>) { return this.admin.update(...args); }
  delete(...args: Parameters<WebhookAdmin['delete']>) { return this.admin.delete(...args); }
  test(...args: Parameters<WebhookAdmin['test']>) { return this.admin.test(...args); }
  redeliver(...args: Parameters<WebhookAdmin['redeliver']>) { return this.admin.redeliver(...args); }
}

/** The event feed: what it answers grows with every change, and no event announces that to the cache. */
export const recordedFeed = (feed: EventFeed, recording: Recording): EventFeed => ({
  page(query) {
    recording.unannounced = 'the event feed';
    return feed.page(query);
  },
});
