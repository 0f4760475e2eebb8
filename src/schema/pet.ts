import { appError } from '../errors.js';
import { builder } from './builder.js';
import { PetStatusEnum, type PetStatus } from './pet-status.js';

export interface PetRecord {
  id: number;
  name: string;
  categoryId: number;
  status: PetStatus;
}

export const PAGE_SIZE = { min: 1, max: 100, default: 20 } as const;

/**
 * Read by the REST layer (Deprecation and Sunset headers) and the OpenAPI document, so the dates live
 * with the field they retire.
 */
export interface FieldLifecycle {
  /** RFC 9745: when the field became deprecated (the first release of this service). */
  readonly deprecatedAt: string;
  /** RFC 8594: when it will be removed (spec, section 9). */
  readonly sunsetAt: string;
}

export const Pet = builder.objectRef<PetRecord>('Pet').implement({
  description: 'An animal of the store: every field of NewPet plus the `id` the service assigned.',
  fields: (t) => ({
    id: t.expose('id', { type: 'SafeInt', description: 'Unique identifier, assigned by the service on creation.' }),
    name: t.exposeString('name', { description: 'The animal\'s name.' }),
    categoryId: t.expose('categoryId', {
      type: 'SafeInt', description: 'Identifier of the category the animal belongs to.',
    }),
    status: t.expose('status', { type: PetStatusEnum, description: 'Availability status.' }),
  }),
});

builder.queryField('pets', (t) =>
  t.field({
    type: [Pet],
    description: 'List animals in ascending `id` order, optionally filtered by availability status.',
    args: {
      limit: t.arg.int({
        defaultValue: PAGE_SIZE.default,
        description: `The maximum number of animals returned: ${PAGE_SIZE.min} to ${PAGE_SIZE.max}.`,
      }),
      status: t.arg({ type: PetStatusEnum, description: 'Only animals with this status. Omitted: no filter.' }),
    },
    resolve: (_root, { limit, status }, { pets }) => {
      const pageSize = limit ?? PAGE_SIZE.default;
      if (pageSize < PAGE_SIZE.min || pageSize > PAGE_SIZE.max) {
        throw appError('BAD_REQUEST', `"limit" must be an integer from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}, got ${pageSize}`);
      }
      return pets.list({ limit: pageSize, status: status ?? undefined });
    },
  }),
);

builder.queryField('pet', (t) =>
  t.field({
    type: Pet,
    nullable: true,
    description: 'Fetch one animal by its identifier.',
    deprecationReason: 'Use `pets` with a `status` filter instead. This field will be removed on 2030-12-05.',
    extensions: {
      lifecycle: { deprecatedAt: '2026-11-21T00:00:00Z', sunsetAt: '2030-12-05T00:00:00Z' } satisfies FieldLifecycle,
    },
    args: {
      petId: t.arg({ type: 'SafeInt', required: true, description: 'The identifier of the animal.' }),
    },
    resolve: async (_root, { petId }, { pets }) => {
      const pet = await pets.get(petId);
      if (!pet) throw appError('NOT_FOUND', `Pet ${petId} not found`);
      return pet;
    },
  }),
);
