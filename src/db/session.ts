import { ON_PRIMARY, type ReadAfter } from './positions.js';
import type { Prepared } from './prepared.js';
import type { Replicas } from './replicas.js';

/** One request's statements when there are replicas: its reads routed to them, its writes' position kept. */
export interface Session extends Prepared {
  /** What this request wrote, as the key's later reads must see it; undefined: it wrote nothing. */
  readonly written: ReadAfter | undefined;
}

/**
 * A request's session over the primary's statements: reads go to a replica that may serve them (after
 * `after`, the key's last write, when given); writes and transactions to the primary. Once the request
 * has written, its reads stay on the primary: no replica has the write yet.
 */
export function session(sql: Prepared, replicas: Replicas, after: ReadAfter | undefined): Session {
  let written: ReadAfter | undefined;
  const wrote = (position: string | undefined) => { written = position ?? ON_PRIMARY; };
  return {
    dialect: sql.dialect,
    get written() { return written; },
    all: (query, params) => replicas.read(sql, query, params, written === undefined ? after : ON_PRIMARY),
    run: async (query, params) => {
      const result = await sql.run(query, params);
      wrote(result.position);
      return result;
    },
    transaction: (work) => sql.transaction(work, wrote),
    batch: (statements) => sql.batch(statements, wrote),
  };
}
