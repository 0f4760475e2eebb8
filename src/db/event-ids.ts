import { INSERT_EVENT } from './outbox.js';
import type { Prepared, Row, Statements, Written } from './prepared.js';

/**
 * A request's statements that tell which outbox ids its writes were given, once they are committed: the
 * highest, which every instance's outbox reader must pass to have heard of every change the request made
 * (the response cache's read-your-writes, without waiting for this instance's own reader).
 *
 * A multi-row INSERT reports its first id on MySQL and its last on SQLite; MySQL's rows take the ids after
 * it one by one (auto_increment_increment 1, as every supported topology has it: a primary and replicas).
 */
export function notingEventIds(sql: Prepared, committed: (id: number) => void): Prepared {
  const lastOf = sql.dialect === 'mysql'
    ? ({ insertId, affectedRows }: Written) => insertId + affectedRows - 1
    : ({ insertId }: Written) => insertId;
  /** The highest event id among `results` of `statements`' SQL, 0 for none. */
  const highest = (sqls: readonly string[], results: readonly (Row[] | Written)[]) => {
    let top = 0;
    sqls.forEach((text, i) => {
      const written = results[i] as Written;
      if (text.startsWith(INSERT_EVENT) && written.affectedRows > 0) top = Math.max(top, lastOf(written));
    });
    return top;
  };
  const heard = (top: number) => {
    if (top > 0) committed(top);
  };
  const batch: Prepared['batch'] = async (statements, onCommit) => {
    const results = await sql.batch(statements, onCommit);
    heard(highest(statements.map(([text]) => text), results));
    return results;
  };
  return {
    dialect: sql.dialect,
    all: (query, params) => sql.all(query, params),
    batch,
    async run(query, params) {
      const written = await sql.run(query, params);
      heard(highest([query], [written]));
      return written;
    },
    async transaction(work, onCommit) {
      let top = 0;
      const result = await sql.transaction((tx: Statements) => work({
        all: (query, params) => tx.all(query, params),
        async run(query, params) {
          const written = await tx.run(query, params);
          top = Math.max(top, highest([query], [written]));
          return written;
        },
      }), onCommit);
      heard(top);
      return result;
    },
  };
}
