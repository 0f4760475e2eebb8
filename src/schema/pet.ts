import { checkName, checkPetChange, NAME_MAX_CHARACTERS, NAME_RULES, petNotFound, type NewPetInput, type PetRecord, type PetStatus } from '../domain/pet.js';
import { builder } from './builder.js';
import { CACHEABLE, GRAPHQL_ONLY, listSize, needs, valueRules, type FieldLifecycle } from './extensions.js';
import { NodeRef } from './node-interface.js';
import { connectionField, CURSOR_DESCRIPTION, limitArgument, listResolver, PAGED_BY_LIMIT, type PageFetch } from './lists.js';
import { Order, Pet } from './refs.js';
import { statusEnum } from './status-enum.js';

/** The animal: its status, the record, what adds one and what changes one, and the fields that do it. */

const PetStatusEnum = statusEnum<PetStatus>('PetStatus', 'Availability status of an animal. It follows the animal\'s orders.', {
  available: 'The animal is available: it can be ordered.',
  pending: 'An order for the animal is open.',
  sold: 'The animal\'s order was delivered.',
});

Pet.implement({
  description: 'An animal of the store: every field of NewPet plus the `id` the service assigned.',
  interfaces: [NodeRef],
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
      // Nothing bounds it (an animal ordered and cancelled again and again): the estimate assumes what
      // an animal typically has (an order, perhaps one cancelled before), and the count while the
      // operation runs stops one that has many more.
      extensions: { ...GRAPHQL_ONLY, ...needs('orders:read'), ...listSize({ assumedSize: 3 }) },
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
    extensions: { ...needs('pets:read'), ...PAGED_BY_LIMIT, ...CACHEABLE },
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
  fetch: fetchPets, scope: 'pets:read',
});

builder.queryField('pet', (t) =>
  t.field({
    type: Pet,
    nullable: true,
    description: 'Fetch one animal by its identifier.',
    deprecationReason: 'Use `pets` with a `status` filter instead. This field will be removed on 2030-12-05.',
    extensions: {
      lifecycle: { deprecatedAt: '2026-11-21T00:00:00Z', sunsetAt: '2030-12-05T00:00:00Z' } satisfies FieldLifecycle,
      ...needs('pets:read'), ...CACHEABLE,
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

/** A name as NewPet and PetChange take it: described, and its limits stated, the same in both. */
const NAME_INPUT = {
  description: `The animal's name: 1 to ${NAME_MAX_CHARACTERS} characters with at least one that is not `
    + 'white space, no control characters. Stored exactly as sent; not unique.',
  extensions: valueRules(NAME_RULES),
};
const CATEGORY_INPUT = { type: 'SafeInt', description: 'Identifier of the category.' } as const;

const NewPet = builder.inputType('NewPet', {
  description: 'An animal to add. The service assigns its `id`.',
  fields: (t) => ({
    name: t.string({ ...NAME_INPUT, required: true }),
    categoryId: t.field({ ...CATEGORY_INPUT, required: true }),
    status: t.field({
      type: PetStatusEnum, required: true, defaultValue: 'available',
      description: 'Availability status; `available` when omitted.',
    }),
  }),
});

builder.mutationField('createPet', (t) =>
  t.field({
    type: Pet,
    description: 'Add an animal. Answers with the stored record, including the assigned `id`.',
    extensions: needs('pets:write'),
    args: { input: t.arg({ type: NewPet, required: true, description: 'The animal to add.' }) },
    resolve: async (_root, { input }, { pets, events }) => {
      checkName(input.name);
      const pet = await pets.create(input as NewPetInput);
      events.changed();
      return pet;
    },
  }),
);

const PetChange = builder.inputType('PetChange', {
  description: 'The fields of an animal to change, at least one; those left out keep their value. '
    + 'Its `status` is not among them: it changes only through the animal\'s orders.',
  fields: (t) => ({
    name: t.string(NAME_INPUT),
    categoryId: t.field(CATEGORY_INPUT),
  }),
});

builder.mutationField('updatePet', (t) =>
  t.field({
    type: Pet,
    description: 'Change an animal\'s name or category. Answers with the changed record.',
    extensions: needs('pets:write'),
    args: {
      petId: t.arg({ type: 'SafeInt', required: true, description: 'The identifier of the animal.' }),
      input: t.arg({ type: PetChange, required: true, description: 'The fields to change.' }),
    },
    resolve: async (_root, { petId, input }, { pets, events }) => {
      const pet = await pets.update(petId, checkPetChange(input));
      if (!pet) throw petNotFound(petId);
      events.changed();
      return pet;
    },
  }),
);

builder.mutationField('deletePet', (t) =>
  t.field({
    type: Pet,
    description: 'Remove an animal that has never been ordered; one with orders keeps its record (409 CONFLICT).',
    extensions: needs('pets:write'),
    args: { petId: t.arg({ type: 'SafeInt', required: true, description: 'The identifier of the animal.' }) },
    resolve: async (_root, { petId }, { pets, events }) => {
      const pet = await pets.delete(petId);
      if (!pet) throw petNotFound(petId);
      events.changed();
      return pet;
    },
  }),
);
