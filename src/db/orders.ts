import type { DataSource } from 'typeorm';
import type { Clock } from '../clock.js';
import {
  checkTransition, isComplete, notOrderable, orderNotFound, ORDERABLE, PET_STATUS_OF_ORDER,
  type OrderRecord, type OrderStatus,
} from '../domain/order.js';
import { petNotFound, type PetRecord } from '../domain/pet.js';
import type { OrderStore } from '../domain/stores.js';
import { bounded } from './deadline.js';
import { FOR_UPDATE, placeholders } from './dialect.js';
import { GET_PET, toPet } from './pets.js';
import { keysetPages } from './keyset.js';
import { recordEvents } from './outbox.js';
import { prepared, type Prepared, type Row, type Statements } from './prepared.js';

const COLUMNS = 'id, pet_id AS petId, status, placed_at AS placedAt';
const GET = `SELECT ${COLUMNS} FROM orders WHERE id = ?`;
const INSERT = 'INSERT INTO orders (pet_id, status, placed_at) VALUES (?, ?, ?)';
const SET_STATUS = 'UPDATE orders SET status = ? WHERE id = ?';
const SET_PET_STATUS = 'UPDATE pets SET status = ? WHERE id = ?';

const toOrder = (row: Row): OrderRecord => {
  const status = row.status as OrderStatus;
  // MySQL's DATETIME(3) comes back as a Date (read as UTC); SQLite keeps the RFC 3339 text.
  const placedAt = row.placedAt instanceof Date ? row.placedAt.toISOString() : String(row.placedAt);
  return { id: Number(row.id), petId: Number(row.petId), status, complete: isComplete(status), placedAt };
};

/** The order store of a data source, made once: `on(sql)` runs it through `sql`, as petStore's does. */
export function orderStore(dataSource: DataSource, clock: Clock): (sql?: Prepared) => OrderStore {
  const shared = prepared(dataSource);
  const lock = FOR_UPDATE[shared.dialect];
  const page = keysetPages(shared.dialect, 'orders', COLUMNS, 'IDX_orders_status_id');
  const timestamp = (ms: number) => {
    const iso = new Date(ms).toISOString();
    return shared.dialect === 'mysql' ? iso.slice(0, 23).replace('T', ' ') : iso;
  };
  /** The pet, locked for the rest of the transaction: every change to a pet's status goes through here. */
  const lockedPet = async (tx: Statements, petId: number) => {
    const [row] = await tx.all(GET_PET + lock, [petId]);
    return row ? toPet(row) : null;
  };
  const movePet = async (tx: Statements, pet: PetRecord, orderStatus: OrderStatus): Promise<PetRecord> => {
    const status = PET_STATUS_OF_ORDER[orderStatus];
    if (status !== pet.status) await tx.run(SET_PET_STATUS, [status, pet.id]);
    return { ...pet, status };
  };

  const place = (sql: Prepared): OrderStore['place'] => ({ petId }) => bounded(dataSource, () => sql.transaction(async (tx) => {
    const pet = await lockedPet(tx, petId);
    if (!pet) throw petNotFound(petId);
    if (pet.status !== ORDERABLE) throw notOrderable(petId, pet.status);
    const placedAt = clock.now();
    const { insertId } = await tx.run(INSERT, [petId, 'placed', timestamp(placedAt)]);
    const order: OrderRecord = { id: insertId, petId, status: 'placed', complete: false, placedAt: new Date(placedAt).toISOString() };
    const moved = await movePet(tx, pet, 'placed');
    await tx.run(...recordEvents(placedAt, [
      { type: 'order.created', payload: { kind: 'CREATED', order } },
      { type: 'pet.updated', payload: { kind: 'UPDATED', pet: moved } },
    ]));
    return { order, pet: moved };
  }));

  const update = (sql: Prepared): OrderStore['update'] => (id, status) => bounded(dataSource, () => sql.transaction(async (tx) => {
    const [row] = await tx.all(GET + lock, [id]);
    if (!row) throw orderNotFound(id);
    const before = toOrder(row);
    checkTransition(id, before.status, status);
    await tx.run(SET_STATUS, [status, id]);
    const pet = await lockedPet(tx, before.petId);
    // The foreign key keeps an ordered pet: it cannot be missing.
    if (!pet) throw new Error(`Order ${id} refers to pet ${before.petId}, which does not exist`);
    const order = { ...before, status, complete: isComplete(status) };
    const moved = await movePet(tx, pet, status);
    await tx.run(...recordEvents(clock.now(), [
      { type: 'order.updated', payload: { kind: 'UPDATED', order } },
      { type: 'pet.updated', payload: { kind: 'UPDATED', pet: moved } },
    ]));
    return { order, pet: moved };
  }));

  return (sql = shared) => ({
    list: (query) => bounded(dataSource, async () => (await page(sql, query)).map(toOrder)),
    get: (id) => bounded(dataSource, async () => {
      const [row] = await sql.all(GET, [id]);
      return row ? toOrder(row) : null;
    }),
    getMany: (ids) => bounded(dataSource, async () => {
      if (ids.length === 0) return [];
      return (await sql.all(`SELECT ${COLUMNS} FROM orders WHERE id IN ${placeholders(ids.length)}`, ids)).map(toOrder);
    }),
    ofPets: (petIds) => bounded(dataSource, async () => {
      if (petIds.length === 0) return [];
      return (await sql.all(`SELECT ${COLUMNS} FROM orders WHERE pet_id IN ${placeholders(petIds.length)} ORDER BY id`, petIds)).map(toOrder);
    }),
    place: place(sql),
    update: update(sql),
  });
}
