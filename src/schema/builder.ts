import SchemaBuilder from '@pothos/core';
import type { Cursors } from '../domain/cursor.js';
import type { ChangeEvents } from '../domain/events.js';
import type { Quota } from '../domain/quota.js';
import type { OrderStore, PetStore } from '../domain/stores.js';
import type { Loaders } from './loaders.js';

/**
 * What a REST answer takes from the execution besides its body: the next page's cursor (its Link header)
 * and the root field's value (a created record's Location). GraphQL has none.
 */
export interface Reply {
  nextCursor?: string;
  value?: unknown;
}

/** What every resolver gets, on both surfaces. */
export interface Context {
  readonly pets: PetStore;
  readonly orders: OrderStore;
  /** This request's batches of nested fields. */
  readonly loaders: Loaders;
  readonly events: ChangeEvents;
  readonly cursors: Cursors;
  /** Logged with anything unexpected a resolver throws. */
  readonly requestId?: string;
  /** REST's: told the next page's cursor when a list may have more. */
  readonly reply?: Reply;
  /** The calling key's windows after this request was counted. */
  readonly quota?: () => Quota | undefined;
  /** Aborts when a subscription must end early: its key was revoked. */
  readonly signal?: AbortSignal;
}

export const builder = new SchemaBuilder<Types>({ defaultFieldNullability: false });

export interface Types {
  Context: Context;
  Scalars: {
    SafeInt: { Input: number; Output: number };
    DateTime: { Input: string; Output: string };
    Cursor: { Input: string; Output: string };
  };
  DefaultFieldNullability: false;
}

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
