import { hash } from 'node:crypto';
import { OperationTypeNode, type ExecutionArgs } from 'graphql';
import { appliedAhead } from '../cache/applied-ahead.js';
import { createResponseCache, type ResponseCache } from '../cache/response-cache.js';
import { useResponseCache } from '../cache/use-response-cache.js';
import { systemClock } from '../clock.js';
import type { Config } from '../config.js';
import { within } from '../db/deadline.js';
import { ON_PRIMARY } from '../db/positions.js';
import { session } from '../db/session.js';
import { scopesText, type Scope } from '../domain/scopes.js';
import { scrapedGauge, type Metrics } from '../ops/metrics.js';
import type { ServerContext } from '../pipeline/context.js';
import type { Step } from '../pipeline/pipeline.js';
import { outboxHorizonMs, type LiveEvents } from './live-events.js';
import type { SharedState } from './shared-state.js';
import type { Stores } from './stores.js';
import type { Surfaces } from './surfaces.js';

/**
 * How far behind the outbox an instance's cache may be and still answer: its reader reads four times a
 * second (at once when woken by a change), so a read that started within this is one of the last four.
 * No cached answer is older than this: a change committed more than this before it was served had been read.
 */
export const CACHE_FRESH_MS = 1_000;
/** How long a cacheable read without Redis waits for the outbox read that hears of other instances' writes. */
const READ_THROUGH_MS = 1_000;

/** An outbox read begun now, ended within READ_THROUGH_MS: false when the database did not answer in time. */
const readInTime = (outbox: LiveEvents['outbox']): Promise<boolean> => within(outbox.poll(), READ_THROUGH_MS).then(() => true, () => false);

/** The response cache of RESPONSE_CACHE_MB (undefined when 0: off), its size and churn in the metrics. */
export function createCache(config: Config, metrics: Metrics): ResponseCache | undefined {
  if (config.responseCacheBytes === 0) return undefined;
  const cache = createResponseCache(config.responseCacheBytes, {
    evicted: (count) => metrics.cacheEvictions.inc(count),
    invalidated: (count) => metrics.cacheInvalidations.inc(count),
  });
  scrapedGauge(metrics, 'response_cache_bytes', 'Memory the response cache holds (keys, answers and what they read), at most RESPONSE_CACHE_MB', () => cache.bytes);
  scrapedGauge(metrics, 'response_cache_entries', 'Answers the response cache holds', () => cache.size);
  return cache;
}

/** Keys longer than this (a GraphQL document, mostly) are kept as their SHA-256. */
const LONG_KEY = 256;

/** A restricted key's scopes decide which answers it may get; every unrestricted key sees the same. */
const visibility = new WeakMap<ReadonlySet<Scope>, string>();
const seenBy = (scopes: ReadonlySet<Scope> | undefined): string => {
  if (!scopes) return '*';
  let text = visibility.get(scopes);
  if (text === undefined) visibility.set(scopes, text = `[${scopesText(scopes)}]`);
  return text;
};

/**
 * The cache's step, wired to what it needs: the routes and documents the schema marks cacheable, the
 * outbox reader (is it current, and reading a write through), each key's last write, the primary for a
 * miss, and the metrics. Validators and 304s work with the cache off too.
 */
export function responseCacheStep(
  cache: ResponseCache | undefined, { config, live, shared, stores, surfaces, metrics }: {
    config: Config; live: LiveEvents; shared: SharedState; stores: Stores; surfaces: Surfaces; metrics: Metrics;
  },
): Step {
  const { outbox } = live;
  // A transaction under way when this instance started has an outbox id below where its reader began, which
  // it never reads: what this instance keeps in its first horizon goes when the horizon ends (by then any
  // such transaction has ended, and everything it could have changed is read before being kept).
  const warmUntil = performance.now() + outboxHorizonMs(config);
  const { writes } = shared;
  const ahead = appliedAhead();
  const cacheable = (serverContext: ServerContext): string | undefined => {
    const call = serverContext.graphql;
    if (!call) return surfaces.rest.useOf(serverContext.endpoint)?.cacheable ? `R ${serverContext.pathname}${serverContext.search}` : undefined;
    const [operation] = call.operations;
    if (call.batch || !operation || operation.kind !== OperationTypeNode.QUERY) return undefined;
    const { params, document } = operation;
    if (!surfaces.operationUse(serverContext)?.cacheable) return undefined;
    // Its warnings are the request's (a deprecated field, a document not registered): an answer is kept with them.
    const warned = serverContext.warnings?.length ? JSON.stringify(serverContext.warnings) : '';
    // The path tells /graphql from the subgraph: a document both take may not be answered alike by both.
    return `G ${serverContext.pathname} ${params.operationName ?? ''} ${JSON.stringify(params.variables ?? null)} ${warned} ${params.query}`;
  };
  return useResponseCache({
    cache,
    keyOf(request, serverContext) {
      const { caller } = serverContext;
      // An operation on a WebSocket takes its result as a value (socket-results.ts), not a response's bytes.
      if (caller?.kind !== 'key' || serverContext.socketResult) return undefined;
      const asked = cacheable(serverContext);
      if (asked === undefined) return undefined;
      // A GraphQL answer's media type follows Accept; a POST's answer has no validators, a GET's has.
      const key = `${request.method === 'POST' ? 'P' : 'G'} ${request.headers.get('accept') ?? ''} ${seenBy(caller.key.scopes)} ${asked}`;
      // A long document is kept by its digest: the cache holds 44 characters for it, not the document.
      return key.length > LONG_KEY ? `#${hash('sha256', key, 'base64')}` : key;
    },
    // With Redis, a key's last write tells every instance how far it must have read; without, only the outbox can.
    catchUp: stores.redis ? () => undefined : () => readInTime(outbox),
    bypass(serverContext) {
      if (outbox.failing) return 'outbox-unread';
      const asOf = outbox.readAsOf;
      if (asOf === undefined || systemClock.now() - asOf > CACHE_FRESH_MS) return 'outbox-behind';
      if (!writes || serverContext.caller?.kind !== 'key') return undefined;
      // Redis did not answer the limits call: a write of the key's on another instance may be unknown here.
      if (stores.redis && serverContext.lastWrite === undefined) return 'last-write-unknown';
      const keyId = serverContext.caller.key.id;
      const written = writes.lastWrite(keyId, serverContext.lastWrite);
      if (!written) return undefined;
      const { through } = written;
      const position = outbox.position ?? 0;
      if (through === undefined || (position < through && !ahead.covers(keyId, through, position))) return 'own-write';
      return undefined;
    },
    wroteHere(serverContext, recording) {
      cache?.appliedEarly(recording.events, recording.changed);
      if (!writes || serverContext.caller?.kind !== 'key') return;
      const keyId = serverContext.caller.key.id;
      ahead.note(keyId, recording.through!, writes.lastWrite(keyId, serverContext.lastWrite)?.through ?? 0);
    },
    // A replica that has applied the position the outbox reader saw has every change the cache has heard of
    // (a replica behind it may lack one whose answer the cache already dropped); unknown, or a write here not
    // yet read (its change was dropped ahead of the reader), the primary.
    readFresh(serverContext) {
      if (!stores.replicas) return;
      const fresh = ahead.ahead(outbox.position ?? 0) ? ON_PRIMARY : outbox.readPosition ?? ON_PRIMARY;
      serverContext.session = session(stores.statements, stores.replicas, fresh);
    },
    expiresAt: () => (performance.now() < warmUntil ? warmUntil : undefined),
    varyOf: (serverContext) => (serverContext.graphql ? 'Accept, Authorization' : 'Authorization'),
    served(serverContext) {
      const operation = serverContext.graphql?.operations[0];
      if (operation) surfaces.executed({ document: operation.document, operationName: operation.params.operationName } as ExecutionArgs)({ data: null });
    },
    counted: (outcome) => metrics.responseCache.inc({ outcome }),
  });
}
