import { petNotFound } from '../domain/order.js';
import { checkPetChange } from '../domain/pet.js';
import { builder } from './builder.js';
import { NAME_DESCRIPTION } from './new-pet.js';
import { Pet } from './refs.js';

export const PetChange = builder.inputType('PetChange', {
  description: 'The fields of an animal to change, at least one; those left out keep their value. '
    + 'Its `status` is not among them: it changes only through the animal\'s orders.',
  fields: (t) => ({
    name: t.string({ description: NAME_DESCRIPTION }),
    categoryId: t.field({ type: 'SafeInt', description: 'Identifier of the category.' }),
  }),
});

builder.mutationField('updatePet', (t) =>
  t.field({
    type: Pet,
    description: 'Change an animal\'s name or category. Answers with the changed record.',
    args: {
      petId: t.arg({ type: 'SafeInt', required: true, description: 'The identifier of the animal.' }),
      input: t.arg({ type: PetChange, required: true, description: 'The fields to change.' }),
    },
    resolve: async (_root, { petId, input }, { pets, events }) => {
      const pet = await pets.update(petId, checkPetChange(input));
      if (!pet) throw petNotFound(petId);
      events.pet({ kind: 'UPDATED', pet });
      return pet;
    },
  }),
);

builder.mutationField('deletePet', (t) =>
  t.field({
    type: Pet,
    description: 'Remove an animal that has never been ordered; one with orders keeps its record (409 CONFLICT).',
    args: { petId: t.arg({ type: 'SafeInt', required: true, description: 'The identifier of the animal.' }) },
    resolve: async (_root, { petId }, { pets, events }) => {
      const pet = await pets.delete(petId);
      if (!pet) throw petNotFound(petId);
      events.pet({ kind: 'DELETED', pet });
      return pet;
    },
  }),
);
