import SchemaBuilder from '@pothos/core';
import DirectivesPlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import type { Cursors } from '../domain/cursor.js';
import type { ChangeEvents, EventFeed, EventType } from '../domain/events.js';
import type { Quota } from '../domain/quota.js';
import type { Scope } from '../domain/scopes.js';
import type { ShowsSecret } from '../domain/secrets.js';
import type { WebhookAdmin } from '../domain/webhooks.js';
import type { OrderStore, PetStore } from '../domain/stores.js';
import type { Loaders } from './loaders.js';

/**
 * What a REST answer takes from the execution besides its body: the query parameters that ask for the
 * next page (its Link header) and the root field's value (a created record's Location). GraphQL has none.
 */
export interface Reply {
  next?: Readonly<Record<string, string>>;
  value?: unknown;
}

/** A subscription's place in the outbox, on a transport that can say it (SSE's `id` and Last-Event-ID). */
export interface StreamPlace {
  /** The Last-Event-ID the client reconnected with: where its stream resumes. */
  readonly resumeAfter?: number;
  /** The id of the event the stream's latest result carries. */
  lastId?: number;
}

/** What every resolver gets, on both surfaces. */
export interface Context {
  readonly pets: PetStore;
  readonly orders: OrderStore;
  /** This request's batches of nested fields. */
  readonly loaders: Loaders;
  readonly events: ChangeEvents;
  readonly feed: EventFeed;
  readonly webhooks: WebhookAdmin;
  /**
   * The calling key's id (every API call has one): what webhooks belong to. Asked for, it makes the answer
   * the caller's alone: the response cache then keeps it for no other key.
   */
  readonly keyId: () => number | undefined;
  /** A restricted key's scopes (undefined: it may do everything): what its webhooks may hear. */
  readonly scopes?: ReadonlySet<Scope>;
  readonly cursors: Cursors;
  /** Logged with anything unexpected a resolver throws. */
  readonly requestId?: string;
  /**
   * Told of each secret the answer shows once, and where it is kept, while an Idempotency-Key holds the
   * answer: the kept answer leaves it out.
   */
  readonly showsSecret?: ShowsSecret;
  /** REST's: told the next page's cursor when a list may have more. */
  readonly reply?: Reply;
  /** The calling key's windows after this request was counted. */
  readonly quota?: () => Quota | undefined;
  /** Aborts when a subscription must end early: its key was revoked. */
  readonly signal?: AbortSignal;
  /** A subscription's: where it resumes, and the id of what it sent last. */
  readonly stream?: StreamPlace;
}

// Federation's plugin (and the directives plugin it prints @key with) adds nothing to a schema built with
// toSchema: only the subgraph's schema (federation/subgraph-schema.ts) carries its entities and directives.
export const builder = new SchemaBuilder<Types>({ plugins: [DirectivesPlugin, FederationPlugin], defaultFieldNullability: false });

export interface Types {
  Context: Context;
  Scalars: {
    SafeInt: { Input: number; Output: number };
    DateTime: { Input: string; Output: string };
    Cursor: { Input: string; Output: string };
    EventType: { Input: EventType; Output: EventType };
  };
  DefaultFieldNullability: false;
}

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
