import type { DataSource } from 'typeorm';
import type { NewPetInput } from '../schema/new-pet.js';
import type { PetRecord } from '../schema/pet.js';
import type { PetStatus } from '../schema/pet-status.js';
import { bounded } from './deadline.js';
import { prepared, type Row } from './prepared.js';

/** Every query the API makes about pets: one round trip each. */
export interface PetStore {
  list(query: { limit: number; status?: PetStatus }): Promise<PetRecord[]>;
  get(id: number): Promise<PetRecord | null>;
  create(pet: NewPetInput): Promise<PetRecord>;
}

const COLUMNS = 'id, name, category_id AS categoryId, status';
const LIST = `SELECT ${COLUMNS} FROM pets ORDER BY id LIMIT ?`;
const LIST_BY_STATUS = `SELECT ${COLUMNS} FROM pets WHERE status = ? ORDER BY id LIMIT ?`;
const GET = `SELECT ${COLUMNS} FROM pets WHERE id = ?`;
const INSERT = 'INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)';

/** MySQL hands BIGINT back as a string; every id we store is a safe integer, so a number is exact. */
const toRecord = (row: Row): PetRecord => ({
  id: Number(row.id), name: row.name as string, categoryId: Number(row.categoryId), status: row.status as PetStatus,
});

export function petStore(dataSource: DataSource): PetStore {
  const sql = prepared(dataSource);
  return {
    list: ({ limit, status }) => bounded(dataSource, async () => {
      // A string: MySQL's binary protocol refuses a DOUBLE for LIMIT, and mysql2 sends JS numbers as one.
      const rows = await (status ? sql.all(LIST_BY_STATUS, [status, String(limit)]) : sql.all(LIST, [String(limit)]));
      return rows.map(toRecord);
    }),
    get: (id) => bounded(dataSource, async () => {
      const [row] = await sql.all(GET, [id]);
      return row ? toRecord(row) : null;
    }),
    async create({ name, categoryId, status }) {
      const id = await bounded(dataSource, () => sql.insert(INSERT, [name, categoryId, status]));
      return { id, name, categoryId, status };
    },
  };
}
