import type { Prepared } from '../db/prepared.js';
import type { Replicas } from '../db/replicas.js';
import { session, type Session } from '../db/session.js';
import type { Step } from '../pipeline/pipeline.js';
import type { LastWrites } from './last-writes.js';

declare module '../pipeline/context.js' {
  interface ServerContext {
    /** The request's statements: reads on replicas, as of its key's last write. Only with read replicas. */
    session?: Session;
  }
}

/**
 * With read replicas: a key's request reads as of the key's last write (waited for on a replica, or read
 * on the primary), and a request that writes leaves its position for the key's next requests, on any
 * instance, before its response is sent. Runs after the limits, whose call read the last write.
 */
export function useReadYourWrites(sql: Prepared, replicas: Replicas, writes: LastWrites): Step {
  return {
    onRequest({ serverContext }) {
      const { caller } = serverContext;
      if (caller?.kind !== 'key') return;
      serverContext.session = session(sql, replicas, writes.after(caller.key.id, serverContext.lastWrite));
    },
    onResponse({ serverContext }) {
      const written = serverContext.session?.written;
      if (written === undefined || serverContext.caller?.kind !== 'key') return undefined;
      return writes.remember(serverContext.caller.key.id, written);
    },
  };
}
