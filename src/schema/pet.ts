import { limitArgument } from '../domain/ids.js';
import type { PetRecord, PetStatus } from '../domain/pet.js';
import { petNotFound } from '../domain/order.js';
import { builder } from './builder.js';
import { connectionField, CURSOR_DESCRIPTION, listResolver, type PageFetch } from './lists.js';
import { PetStatusEnum } from './pet-status.js';
import { GRAPHQL_ONLY, Order, Pet } from './refs.js';

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

Pet.implement({
  description: 'An animal of the store: every field of NewPet plus the `id` the service assigned.',
  fields: (t) => ({
    id: t.expose('id', { type: 'SafeInt', description: 'Unique identifier, assigned by the service on creation.' }),
    name: t.exposeString('name', { description: 'The animal\'s name.' }),
    categoryId: t.expose('categoryId', {
      type: 'SafeInt', description: 'Identifier of the category the animal belongs to.',
    }),
    status: t.expose('status', { type: PetStatusEnum, description: 'Availability status; it follows the animal\'s orders.' }),
    orders: t.field({
      type: [Order],
      description: 'Every order placed for the animal, oldest first (GraphQL only).',
      extensions: GRAPHQL_ONLY,
      resolve: (pet, _args, { loaders }) => loaders.ordersOfPet.load(pet.id),
    }),
  }),
});

/** Both the list and the connection read the same keyset pages. */
const fetchPets: PageFetch<PetRecord, PetStatus> = ({ pets }, query) => pets.list(query);

builder.queryField('pets', (t) =>
  t.field({
    type: [Pet],
    description: 'List animals in ascending `id` order, optionally filtered by availability status.',
    args: {
      limit: t.arg.int(limitArgument('animals')),
      status: t.arg({ type: PetStatusEnum, description: 'Only animals with this status. Omitted: no filter.' }),
      cursor: t.arg({ type: 'Cursor', description: CURSOR_DESCRIPTION }),
    },
    resolve: listResolver('pets', fetchPets),
  }),
);

connectionField({
  field: 'petsConnection', node: Pet, list: 'pets', what: 'animals', statusEnum: PetStatusEnum,
  fetch: fetchPets,
});

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
      if (!pet) throw petNotFound(petId);
      return pet;
    },
  }),
);
