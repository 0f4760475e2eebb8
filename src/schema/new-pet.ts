import { checkName, NAME_MAX_CHARACTERS, type NewPetInput } from '../domain/pet.js';
import { builder } from './builder.js';
import { PetStatusEnum } from './pet-status.js';
import { Pet } from './refs.js';

export const NAME_DESCRIPTION = `The animal's name: 1 to ${NAME_MAX_CHARACTERS} characters with at least one that is not `
  + 'white space, no control characters. Stored exactly as sent; not unique.';

export const NewPet = builder.inputType('NewPet', {
  description: 'An animal to add. The service assigns its `id`.',
  fields: (t) => ({
    name: t.string({ required: true, description: NAME_DESCRIPTION }),
    categoryId: t.field({ type: 'SafeInt', required: true, description: 'Identifier of the category.' }),
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
    args: { input: t.arg({ type: NewPet, required: true, description: 'The animal to add.' }) },
    resolve: async (_root, { input }, { pets, events }) => {
      checkName(input.name);
      const pet = await pets.create(input as NewPetInput);
      events.pet({ kind: 'CREATED', pet });
      return pet;
    },
  }),
);
