import type { DataSource } from 'typeorm';
import { appError } from '../errors.js';
import type { PetRecord, PetStatus } from '../domain/pet.js';
import type { PetStore } from '../domain/stores.js';
import { bounded } from './deadline.js';
import { keysetPages } from './keyset.js';
import { FOR_UPDATE, prepared, type Prepared, type Row } from './prepared.js';

export const PET_COLUMNS = 'id, name, category_id AS categoryId, status';
export const GET_PET = `SELECT ${PET_COLUMNS} FROM pets WHERE id = ?`;
const INSERT = 'INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)';
// One statement for any change: a field left out (null) keeps its value.
const UPDATE = 'UPDATE pets SET name = COALESCE(?, name), category_id = COALESCE(?, category_id) WHERE id = ?';
const HAS_ORDERS = 'SELECT 1 AS found FROM orders WHERE pet_id = ? LIMIT 1';
const DELETE = 'DELETE FROM pets WHERE id = ?';

/** `(?, ?, ?)` for n values: one statement per batch size, which the drivers keep prepared. */
export const placeholders = (n: number) => `(${Array.from({ length: n }, () => '?').join(', ')})`;

/** MySQL hands BIGINT back as a number, or as a string past 2^53 (never for our ids); SQLite as a number. */
export const toPet = (row: Row): PetRecord => ({
  id: Number(row.id), name: row.name as string, categoryId: Number(row.categoryId), status: row.status as PetStatus,
});

/** The foreign key from orders refused the delete: an order came in first. */
const isReferenced = (error: unknown) => {
  const { code, errno } = (error ?? {}) as { code?: unknown; errno?: unknown };
  return errno === 1451 || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
};

/**
 * The pet store of a data source, made once: `on(sql)` runs it through `sql`, the data source's own
 * statements by default, or one request's session (reads on replicas) per request.
 */
export function petStore(dataSource: DataSource): (sql?: Prepared) => PetStore {
  const shared = prepared(dataSource);
  const page = keysetPages(shared.dialect, 'pets', PET_COLUMNS, 'IDX_pets_status_id');
  return (sql = shared) => ({
    list: (query) => bounded(dataSource, async () => (await page(sql, query)).map(toPet)),
    get: (id) => bounded(dataSource, async () => {
      const [row] = await sql.all(GET_PET, [id]);
      return row ? toPet(row) : null;
    }),
    getMany: (ids) => bounded(dataSource, async () => {
      if (ids.length === 0) return [];
      return (await sql.all(`SELECT ${PET_COLUMNS} FROM pets WHERE id IN ${placeholders(ids.length)}`, ids)).map(toPet);
    }),
    async create({ name, categoryId, status }) {
      const { insertId } = await bounded(dataSource, () => sql.run(INSERT, [name, categoryId, status]));
      return { id: insertId, name, categoryId, status };
    },
    update: (id, { name, categoryId }) => bounded(dataSource, async () => {
      await sql.run(UPDATE, [name ?? null, categoryId ?? null, id]);
      const [row] = await sql.all(GET_PET, [id]);
      return row ? toPet(row) : null;
    }),
    delete: (id) => bounded(dataSource, () => sql.transaction(async (tx) => {
      const [row] = await tx.all(GET_PET + FOR_UPDATE[sql.dialect], [id]);
      if (!row) return null;
      if ((await tx.all(HAS_ORDERS, [id])).length > 0) throw hasOrders(id);
      await tx.run(DELETE, [id]).catch((error: unknown) => { throw isReferenced(error) ? hasOrders(id) : error; });
      return toPet(row);
    })),
  });
}

const hasOrders = (id: number) =>
  appError('CONFLICT', `Pet ${id} has orders and cannot be deleted; its orders keep the record of its sale`);
