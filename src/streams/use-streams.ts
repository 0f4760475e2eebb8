import { randomUUID } from 'node:crypto';
import type { Authenticate } from '../auth/authenticate.js';
import { isSafeId, MAX_SAFE_ID } from '../domain/ids.js';
import { appError } from '../errors.js';
import type { Step } from '../pipeline/pipeline.js';
import type { StreamPlace } from '../schema/builder.js';
import { LEASE_MS, type StreamSlots } from './stream-slots.js';

declare module '../pipeline/context.js' {
  interface ServerContext {
    /** Aborts when a subscription's stream must end early (its key was revoked). */
    streamSignal?: AbortSignal;
    /** A subscription's place in the outbox: where it resumes (Last-Event-ID), and what it sent last. */
    streamPlace?: StreamPlace;
  }
}

/** An event id as Last-Event-ID carries it: the decimal `id` of an SSE event we sent. */
const EVENT_ID = /^[1-9]\d{0,15}$/;

/** Where a reconnecting EventSource resumes; a header that is no id of ours is refused, not ignored. */
function resumeAfter(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const id = header.trim();
  if (EVENT_ID.test(id) && isSafeId(Number(id))) return Number(id);
  throw appError('BAD_REQUEST', `Last-Event-ID must be the id of an event this service sent (an integer from 1 to ${MAX_SAFE_ID}), got ${JSON.stringify(header.slice(0, 40))}`);
}

export interface StreamOptions {
  readonly slots: StreamSlots;
  readonly perKey: number;
  readonly authenticate: Authenticate;
  /** How often an open stream's key is looked at again: a revoked key's streams end within the key cache's TTL. */
  readonly recheckMs: number;
}

/**
 * A subscription holds one of its key's slots for as long as its stream is open (the next one over the
 * limit is 429), and ends when its key is revoked. Runs after the request was counted and checked.
 */
export function useStreams({ slots, perKey, authenticate, recheckMs }: StreamOptions): Step {
  return {
    onRequest({ request, serverContext }) {
      const { graphql, caller, res } = serverContext;
      if (graphql?.kind !== 'subscription' || caller?.kind !== 'key') return undefined;
      const keyId = caller.key.id;
      serverContext.streamPlace = { resumeAfter: resumeAfter(request.headers.get('last-event-id')) };
      const streamId = randomUUID();
      let closed = false;
      res?.once('close', () => { closed = true; });
      return slots.take(keyId, streamId).then((taken) => {
        if (!taken) {
          throw appError('RATE_LIMITED', `A key may hold ${perKey} open subscriptions at once; close one before opening another`, {
            headers: { 'Retry-After': '1' },
          });
        }
        const ended = new AbortController();
        serverContext.streamSignal = ended.signal;
        const authorization = request.headers.get('authorization');
        let sinceLease = 0;
        const check = setInterval(async () => {
          sinceLease += recheckMs;
          if (sinceLease >= LEASE_MS / 3) { sinceLease = 0; slots.keep(keyId, streamId); }
          const now = await Promise.resolve(authenticate(authorization)).catch(() => undefined);
          // An unreachable key table is not a revocation: the stream goes on.
          if (now?.kind === 'anonymous') ended.abort();
        }, recheckMs);
        check.unref();
        const release = () => { clearInterval(check); ended.abort(); slots.give(keyId, streamId); };
        if (closed) release();
        else if (res) res.once('close', release);
        else request.signal.addEventListener('abort', release, { once: true });
      });
    },
  };
}
