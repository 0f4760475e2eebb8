import { INSERT_EVENT } from './outbox.js';
import type { Prepared, Row, Statements, Written } from './prepared.js';

/**
 * A request's statements that tell which outbox ids its writes' events were given, once they are
 * committed (the response cache's read-your-writes: every instance's outbox reader must pass the highest
 * to have heard of them, and the writing instance need not wait for its own reader).
 *
 * A multi-row INSERT reports its first id on MySQL and its last on SQLite; MySQL's rows take the ids after
 * it one by one (auto_increment_increment 1, as every supported topology has it: a primary and replicas).
 */
export function notingEventIds(sql: Prepared, committed: (ids: readonly number[]) => void): Prepared {
  const firstOf = sql.dialect === 'mysql'
    ? ({ insertId }: Written) => insertId
    : ({ insertId, affectedRows }: Written) => insertId - affectedRows + 1;
  /** The event ids `results` of `statements`' SQL were given. */
  const idsOf = (sqls: readonly string[], results: readonly (Row[] | Written)[]) => {
    const ids: number[] = [];
    sqls.forEach((text, i) => {
      const written = results[i] as Written;
      if (!text.startsWith(INSERT_EVENT)) return;
      for (let row = 0; row < written.affectedRows; row++) ids.push(firstOf(written) + row);
    });
    return ids;
  };
  const heard = (ids: readonly number[]) => {
    if (ids.length > 0) committed(ids);
  };
  const batch: Prepared['batch'] = async (statements, onCommit) => {
    const results = await sql.batch(statements, onCommit);
    heard(idsOf(statements.map(([text]) => text), results));
    return results;
  };
  return {
    dialect: sql.dialect,
    all: (query, params) => sql.all(query, params),
    batch,
    async run(query, params) {
      const written = await sql.run(query, params);
      heard(idsOf([query], [written]));
      return written;
    },
    async transaction(work, onCommit) {
      const ids: number[] = [];
      const result = await sql.transaction((tx: Statements) => work({
        all: (query, params) => tx.all(query, params),
        async run(query, params) {
          const written = await tx.run(query, params);
          ids.push(...idsOf([query], [written]));
          return written;
        },
      }), onCommit);
      heard(ids);
      return result;
    },
  };
}
