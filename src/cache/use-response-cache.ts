import { identityOf } from '../auth/use-auth.js';
import type { ServerContext } from '../pipeline/context.js';
import { HeaderMap } from '../pipeline/header-map.js';
import type { Step } from '../pipeline/pipeline.js';
import { isPlainResponse, Response } from '../pipeline/response.js';
import { Recording } from './recorded-stores.js';
import type { ResponseCache } from './response-cache.js';
import { entityTag, noneMatch } from './validators.js';

declare module '../pipeline/context.js' {
  interface ServerContext {
    /** With the response cache on: what the request's resolvers read and whether they wrote (recorded-stores.ts). */
    recording?: Recording;
  }
}

/** How a cacheable read was answered, as the metrics count it and `Cache-Status` tells it. */
export type CacheOutcome = 'hit' | 'miss' | 'bypass';

export interface ResponseCacheParts {
  /** Undefined: the cache is off; answers still carry validators, and a 304 still costs no point. */
  readonly cache: ResponseCache | undefined;
  /** The key a read's answer is kept under (what it asks and what its key may see); undefined for what is never kept. */
  keyOf(request: Request, serverContext: ServerContext): string | undefined;
  /**
   * What a cacheable read waits for before the cache is looked at (undefined: nothing): without Redis, an
   * outbox read begun after it came, the only way to hear of a write on another instance. False: it did
   * not end in time, and the cache cannot answer.
   */
  catchUp(): Promise<boolean> | undefined;
  /** Why this instance cannot answer the request from its cache now; undefined: it can. */
  bypass(serverContext: ServerContext): string | undefined;
  /** A miss that may be kept reads what the outbox has told (the primary, not a replica that may be behind). */
  readFresh(serverContext: ServerContext): void;
  /**
   * A write committed on this instance, its events at outbox ids up to `recording.through`: what it changed
   * is dropped here at once, ahead of this instance's outbox reader, and its key may be served here again.
   */
  wroteHere(serverContext: ServerContext, recording: Recording): void;
  /** When an answer made now must go whatever happens (performance.now()); undefined: only a change or the bound takes it. */
  expiresAt(): number | undefined;
  /** What the answer depends on besides its URL, for Vary. */
  varyOf(serverContext: ServerContext): string;
  /** A hit, counted as the operation it answers (the GraphQL operation metrics). */
  served(serverContext: ServerContext): void;
  /** Every cacheable read, by how it was answered; and the 304s. */
  counted(outcome: CacheOutcome | 'not_modified'): void;
}

/** RFC 9211's Cache-Status, in the name of this cache. */
const CACHE_STATUS = { hit: 'animal-store; hit', miss: 'animal-store; fwd=miss', bypass: 'animal-store; fwd=bypass' } as const;
/** Kept by the browser and asked again every time (RFC 9111, 5.2.2.4); never by a shared cache: the data is per key. */
const CACHE_CONTROL = 'private, no-cache';
/** What a 304 leaves out: the body and what described it. */
const BODY_HEADERS = new Set(['content-type', 'content-length', 'content-encoding']);

const isRead = (method: string) => method === 'GET' || method === 'HEAD';

/** 304 Not Modified: the headers the 200 would have had (RFC 9110, 15.4.5), without the body's. */
function notModified(headers: Iterable<readonly [string, string]>): Response {
  const kept = new HeaderMap();
  for (const [name, value] of headers) if (!BODY_HEADERS.has(name.toLowerCase())) kept.set(name, value);
  return new Response(null, { status: 304, headers: kept });
}

/**
 * Validators on every read, and the response cache (when on) for the reads that repeat.
 *
 * Every 200 to a GET carries a strong ETag of its bytes, `Cache-Control: private, no-cache` and its
 * Vary; an If-None-Match that names it is answered 304, and costs no point (its points were only looked
 * at: use-rate-limit.ts). A cacheable read is answered from this instance's cache when the instance
 * knows the entry is current: its outbox reader is up to date and the key's own last write has been
 * read through here (otherwise `bypass` says why, and the read runs). The hit's 304 touches neither the
 * database nor the resolvers. Everything else about the request (its limits, its headers, its log line,
 * its metrics) runs as for any request: this is the last step before the surface.
 */
export function useResponseCache(parts: ResponseCacheParts): Step {
  const { cache } = parts;
  return {
    async onRequest({ request, serverContext, endResponse }) {
      // An API request (a page, a probe or a refusal was answered before it got here): its answer gets validators.
      serverContext.validated = true;
      const key = cache ? parts.keyOf(request, serverContext) : undefined;
      const caughtUp = key === undefined ? undefined : parts.catchUp();
      const known = key !== undefined && (caughtUp === undefined || await caughtUp) && parts.bypass(serverContext) === undefined;
      const kept = known ? cache!.get(key) : undefined;
      // Made for one caller alone (it read whose records, or who, the caller is): another caller's read runs.
      const hit = kept?.caller === undefined || kept.caller === identityOf(serverContext.caller) ? kept : undefined;
      if (!hit) {
        // What its resolvers read and write (a hit runs none).
        if (cache) serverContext.recording = new Recording();
        if (key !== undefined) serverContext.cached = known ? { key, outcome: 'miss', mark: cache!.mark() } : { key, outcome: 'bypass' };
        if (known) parts.readFresh(serverContext);
        // Its points are gone: only a 304 from what this instance knows was free, and it does not know.
        if (serverContext.deferredCost?.affordable === false) await serverContext.deferredCost.take();
        return;
      }
      serverContext.cached = { key: key!, outcome: 'hit' };
      const validator = isRead(request.method) ? request.headers.get('if-none-match') : null;
      if (validator !== null && noneMatch(validator, hit.etag)) {
        endResponse(notModified(hit.headers));
        return;
      }
      await serverContext.deferredCost?.take();
      parts.served(serverContext);
      endResponse(new Response(hit.body as Uint8Array<ArrayBuffer>, { status: hit.status, headers: new HeaderMap(hit.headers as [string, string][]) }));
    },

    async onResponse({ request, response, serverContext, replaceResponse }) {
      const recording = serverContext.recording;
      // The key's next reads, on every instance this one included, are served from a cache only once its
      // outbox reader has passed the ids the write's events were given (left in Redis before the answer
      // goes: use-read-your-writes.ts); nothing waits here for a read of the outbox. A write that failed on
      // the server's side may still have committed (the database went away as it did): its key's reads skip
      // every cache for the window. (A 4xx changed nothing.)
      if (recording?.wrote) {
        serverContext.writtenThrough = response.status < 500 ? recording.through : Number.MAX_SAFE_INTEGER;
        if (response.status < 500 && recording.through !== undefined) parts.wroteHere(serverContext, recording);
      }
      const read = isRead(request.method) && serverContext.validated === true;
      const cached = serverContext.cached;
      if (!read && !cached) return;
      if (response.status === 304) {
        if (cached) response.headers.set('Cache-Status', CACHE_STATUS[cached.outcome]);
        parts.counted('not_modified');
        return;
      }
      if (cached?.outcome === 'hit') {
        // Sent as it was kept: a GET's validators are in its headers. (Refused instead: its points were gone.)
        if (response.status === 200) {
          response.headers.set('Cache-Status', CACHE_STATUS.hit);
          parts.counted('hit');
        }
        return;
      }
      if (response.status !== 200 || !isPlainResponse(response) || response.plainBody === null) return;
      const body = response.plainBody;
      let etag = '';
      let unchanged = false;
      if (read) {
        etag = entityTag(response.headers.get('content-type'), body);
        const validator = request.headers.get('if-none-match');
        unchanged = validator !== null && noneMatch(validator, etag);
        // More than a 304: the points it waited for are taken now (a 429, without the answer's headers, when they are gone).
        if (!unchanged) await serverContext.deferredCost?.take();
        response.headers.set('ETag', etag);
        response.headers.set('Cache-Control', CACHE_CONTROL);
        response.headers.set('Vary', parts.varyOf(serverContext));
      }
      if (cached) {
        parts.counted(cached.outcome);
        // A GraphQL answer with errors carries its request's id (and one from yoga's lane is not known to be without): not kept.
        const clean = serverContext.graphql === undefined || serverContext.answeredWithoutErrors === true;
        // What no outbox event announces (webhook endpoints, the feed, the quota) would never be dropped when it changes: not kept.
        if (cached.mark !== undefined && cache && recording && !recording.wrote && recording.unannounced === undefined && clean) {
          const bytes = typeof body === 'string' ? Buffer.from(body) : body;
          const answer = { status: 200, headers: [...response.headers], body: bytes, etag, ...(recording.caller === undefined ? {} : { caller: recording.caller }) };
          cache.store(cached.key, answer, recording.reads, cached.mark, parts.expiresAt());
        }
        response.headers.set('Cache-Status', CACHE_STATUS[cached.outcome]);
      }
      if (unchanged) {
        replaceResponse(notModified(response.headers));
        parts.counted('not_modified');
      }
    },
  };
}

declare module '../pipeline/context.js' {
  interface ServerContext {
    /** The request reached the response cache's step: an API request, whose read gets validators. */
    validated?: boolean;
    /** A cacheable read: its key, how it was answered, and (a miss) where its making started. */
    cached?: { readonly key: string; readonly outcome: CacheOutcome; readonly mark?: number };
  }
}
