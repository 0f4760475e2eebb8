import { EntitySchema, type ValueTransformer } from 'typeorm';
import type { PetRecord } from '../domain/pet.js';

/** MySQL drivers hand BIGINT back as strings; every id we store is a safe integer, so a number is exact. */
export const bigintAsNumber: ValueTransformer = {
  to: (value: number | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};

export const PetEntity = new EntitySchema<PetRecord>({
  name: 'Pet',
  tableName: 'pets',
  columns: {
    id: { type: 'bigint', primary: true, generated: 'increment', transformer: bigintAsNumber },
    name: { type: 'varchar', length: 255 },
    categoryId: { name: 'category_id', type: 'bigint', transformer: bigintAsNumber },
    status: { type: 'varchar', length: 16 },
  },
});
