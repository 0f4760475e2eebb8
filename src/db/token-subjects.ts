import { hash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { bounded } from './deadline.js';
import { INSERT_IGNORE } from './dialect.js';

/** The ids of token subjects: one per issuer and subject, made the first time any instance meets it. */
export interface TokenSubjectStore {
  idOf(issuer: string, subject: string): Promise<number>;
}

export function tokenSubjectStore(dataSource: DataSource): TokenSubjectStore {
  const dialect = dataSource.options.type === 'mysql' ? 'mysql' : 'sqlite';
  // Left as it is when another instance made it first: the read after finds that one's id.
  const insert = `${INSERT_IGNORE[dialect]} INTO token_subjects (hash, issuer, subject, created_at) VALUES (?, ?, ?, ?)`;
  return {
    async idOf(issuer, subject) {
      const key = hash('sha256', `${issuer}\n${subject}`, 'hex');
      const read = () => dataSource.query('SELECT id FROM token_subjects WHERE hash = ?', [key]) as Promise<{ id: number | string }[]>;
      let [row] = await bounded(dataSource, read);
      if (!row) {
        // As both drivers take a DATETIME's text (better-sqlite3 binds no Date).
        const createdAt = new Date().toISOString().slice(0, 19).replace('T', ' ');
        await bounded(dataSource, () => dataSource.query(insert, [key, issuer.slice(0, 255), subject.slice(0, 255), createdAt]));
        [row] = await bounded(dataSource, read);
      }
      if (!row) throw new Error('a token subject could not be recorded');
      return Number(row.id);
    },
  };
}
