import { ON_PRIMARY } from '../db/positions.js';
import type { Prepared } from '../db/prepared.js';
import type { Replicas } from '../db/replicas.js';
import { session, type Session } from '../db/session.js';
import type { Step } from '../pipeline/pipeline.js';
import type { LastWrites } from './last-writes.js';

declare module '../pipeline/context.js' {
  interface ServerContext {
    /** The request's statements: reads on replicas, as of its key's last write. Only with read replicas. */
    session?: Session;
    /** The outbox id every instance reads this request's write through (set by the response cache, which waits for it). */
    writtenThrough?: number;
  }
}

/**
 * A key's request reads as of the key's last write, and a request that writes leaves its position for
 * the key's next requests, on any instance, before its response is sent. With read replicas, that
 * position is waited for on a replica (or read on the primary); with the response cache, the outbox id
 * the write is read through decides whether an instance's cache may answer the key (cache/). Runs after
 * the limits, whose call read the last write.
 */
export function useReadYourWrites(
  writes: LastWrites, replicas?: { readonly sql: Prepared; readonly replicas: Replicas },
  /**
   * With the response cache: how long a write's answer waits when its outbox id could not be kept for the
   * other instances (Redis out of reach from here): past it, every instance serving from its cache has read it.
   */
  unshared = 0,
): Step {
  return {
    onRequest({ serverContext }) {
      const { caller } = serverContext;
      if (!replicas || caller?.kind !== 'key') return;
      serverContext.session = session(replicas.sql, replicas.replicas, writes.after(caller.key.id, serverContext.lastWrite));
    },
    async onResponse({ serverContext }) {
      const written = serverContext.session?.written;
      const through = serverContext.writtenThrough;
      if ((written === undefined && through === undefined) || serverContext.caller?.kind !== 'key') return;
      const shared = await writes.remember(serverContext.caller.key.id, written ?? ON_PRIMARY, through);
      if (!shared && through !== undefined && unshared > 0) await new Promise((resolve) => setTimeout(resolve, unshared));
    },
  };
}
