import type { DataSource } from 'typeorm';
import type { Clock } from '../clock.js';
import { appError } from '../errors.js';
import type { EventPayload } from '../domain/events.js';
import { CHANGEABLE_PET_FIELDS, type NewPetInput, type PetRecord, type PetStatus } from '../domain/pet.js';
import type { PetStore } from '../domain/stores.js';
import { bounded } from './deadline.js';
import { keysetPages } from './keyset.js';
import { INSERT_EVENT, recordEventOfRow, recordEvents } from './outbox.js';
import { FOR_UPDATE, LAST_ID, placeholders } from './dialect.js';
import { prepared, type Prepared, type Row, type Written } from './prepared.js';

/**
 * A pet's fields and their columns, every one of PetRecord's (the compiler holds them to it): the rows the
 * API reads, the INSERT, the UPDATE of what a client may change, and the payload of its events.
 */
const COLUMN_OF = { id: 'id', name: 'name', categoryId: 'category_id', status: 'status' } as const satisfies Record<keyof PetRecord, string>;
const PET_FIELDS = Object.entries(COLUMN_OF) as [keyof PetRecord, string][];
const NEW_FIELDS = PET_FIELDS.filter(([field]) => field !== 'id');
export const PET_COLUMNS = PET_FIELDS.map(([field, column]) => (field === column ? column : `${column} AS ${field}`)).join(', ');
/** The event of a pet, its record read from its row by the event's own statement (both dialects have json_object). */
const PET_EVENT = recordEventOfRow('pets', `'pet', json_object(${PET_FIELDS.map(([field, column]) => `'${field}', ${column}`).join(', ')})`, 'id = ');
export const GET_PET = `SELECT ${PET_COLUMNS} FROM pets WHERE id = ?`;
const INSERT = `INSERT INTO pets (${NEW_FIELDS.map(([, column]) => column).join(', ')}) VALUES ${placeholders(NEW_FIELDS.length)}`;
// One statement for any change: a field left out (null) keeps its value.
const UPDATE = `UPDATE pets SET ${CHANGEABLE_PET_FIELDS.map((field) => `${COLUMN_OF[field]} = COALESCE(?, ${COLUMN_OF[field]})`).join(', ')} WHERE id = ?`;
const HAS_ORDERS = 'SELECT 1 AS found FROM orders WHERE pet_id = ? LIMIT 1';
const DELETE = 'DELETE FROM pets WHERE id = ?';


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
export function petStore(dataSource: DataSource, clock: Clock): (sql?: Prepared) => PetStore {
  const shared = prepared(dataSource);
  const page = keysetPages(shared.dialect, 'pets', PET_COLUMNS, 'IDX_pets_status_id');
  // A new pet's record is known here but for its id: the statement sets the id the INSERT before it made.
  const createdEvent = `${INSERT_EVENT} VALUES (?, ?, json_set(?, '$.pet.id', ${LAST_ID[shared.dialect]}))`;
  const changedEvent = `${PET_EVENT}?`;
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
    // The change and its event in one transaction: one round trip on MariaDB (prepared.ts's batch).
    async create(pet) {
      const [inserted] = await bounded(dataSource, () => sql.batch([
        [INSERT, NEW_FIELDS.map(([field]) => pet[field as keyof NewPetInput])],
        [createdEvent, ['pet.created', clock.now(), JSON.stringify({ kind: 'CREATED', pet: { id: 0, ...pet } } satisfies EventPayload<'pet.created'>)]],
      ]));
      return { ...pet, id: (inserted as Written).insertId };
    },
    update: (id, change) => bounded(dataSource, async () => {
      const [, , rows] = await sql.batch([
        [UPDATE, [...CHANGEABLE_PET_FIELDS.map((field) => change[field] ?? null), id]],
        [changedEvent, ['pet.updated', clock.now(), 'UPDATED', id]],
        [GET_PET, [id]],
      ]);
      const [row] = rows as Row[];
      return row ? toPet(row) : null;
    }),
    delete: (id) => bounded(dataSource, () => sql.transaction(async (tx) => {
      const [row] = await tx.all(GET_PET + FOR_UPDATE[sql.dialect], [id]);
      if (!row) return null;
      if ((await tx.all(HAS_ORDERS, [id])).length > 0) throw hasOrders(id);
      const pet = toPet(row);
      await tx.run(DELETE, [id]).catch((error: unknown) => { throw isReferenced(error) ? hasOrders(id) : error; });
      // The event last, just before the commit: an event id given out to a transaction that then rolls
      // back holds the streams up (they wait for it in id order) until it is given up on.
      await tx.run(...recordEvents(clock.now(), [{ type: 'pet.deleted', payload: { kind: 'DELETED', pet } }]));
      return pet;
    })),
  });
}

const hasOrders = (id: number) =>
  appError('CONFLICT', `Pet ${id} has orders and cannot be deleted; its orders keep the record of its sale`);
