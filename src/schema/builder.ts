import SchemaBuilder from '@pothos/core';
import type { ChangeEvents } from '../domain/events.js';
import type { OrderStore, PetStore } from '../domain/stores.js';
import type { Loaders } from './loaders.js';

/** What every resolver gets, on both surfaces. */
export interface Context {
  readonly pets: PetStore;
  readonly orders: OrderStore;
  /** This request's batches of nested fields. */
  readonly loaders: Loaders;
  readonly events: ChangeEvents;
  /** Aborts when a subscription must end early: its key was revoked. */
  readonly signal?: AbortSignal;
}

export const builder = new SchemaBuilder<{
  Context: Context;
  Scalars: {
    SafeInt: { Input: number; Output: number };
    DateTime: { Input: string; Output: string };
  };
  DefaultFieldNullability: false;
}>({ defaultFieldNullability: false });

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
