import type { DataSource } from 'typeorm';
import type { NewPetInput } from '../schema/new-pet.js';
import type { PetRecord } from '../schema/pet.js';
import type { PetStatus } from '../schema/pet-status.js';
import { PetEntity } from './pet.entity.js';
import { bounded } from './deadline.js';

/** Every query the API makes about pets: one round trip each. */
export interface PetStore {
  list(query: { limit: number; status?: PetStatus }): Promise<PetRecord[]>;
  get(id: number): Promise<PetRecord | null>;
  create(pet: NewPetInput): Promise<PetRecord>;
}

export function petStore(dataSource: DataSource): PetStore {
  const pets = dataSource.getRepository(PetEntity);
  return {
    list: ({ limit, status }) =>
      bounded(dataSource, () => pets.find({ where: status ? { status } : {}, order: { id: 'ASC' }, take: limit })),
    get: (id) => bounded(dataSource, () => pets.findOneBy({ id })),
    async create({ name, categoryId, status }) {
      // insert() writes the generated id back into the object it is given; give it one of its own.
      const { identifiers } = await bounded(dataSource, () => pets.insert({ name, categoryId, status }));
      return { id: Number(identifiers[0]?.id), name, categoryId, status };
    },
  };
}
