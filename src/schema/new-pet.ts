import { appError } from '../errors.js';
import { builder } from './builder.js';
import { Pet } from './pet.js';
import { PetStatusEnum, type PetStatus } from './pet-status.js';

export const NAME_MAX_CHARACTERS = 255;

export interface NewPetInput {
  name: string;
  categoryId: number;
  status: PetStatus;
}

export const NewPet = builder.inputType('NewPet', {
  description: 'An animal to add. The service assigns its `id`.',
  fields: (t) => ({
    name: t.string({
      required: true,
      description:
        `The animal's name: 1 to ${NAME_MAX_CHARACTERS} characters with at least one that is not white space, ` +
        'no control characters. Stored exactly as sent; not unique.',
    }),
    categoryId: t.field({ type: 'SafeInt', required: true, description: 'Identifier of the category.' }),
    status: t.field({
      type: PetStatusEnum, required: true, defaultValue: 'available',
      description: 'Availability status; `available` when omitted.',
    }),
  }),
});

/** The rules GraphQL's type system cannot say; a name is counted in Unicode characters, as MySQL counts them. */
export function checkName(name: string): void {
  if (!name.isWellFormed()) throw appError('BAD_REQUEST', '"name" must be valid Unicode text');
  if (!/\S/u.test(name)) throw appError('BAD_REQUEST', '"name" must contain at least one character that is not white space');
  if (/\p{Cc}/u.test(name)) throw appError('BAD_REQUEST', '"name" must not contain control characters');
  const length = [...name].length;
  if (length > NAME_MAX_CHARACTERS) {
    throw appError('BAD_REQUEST', `"name" must be at most ${NAME_MAX_CHARACTERS} characters, got ${length}`);
  }
}

builder.mutationField('createPet', (t) =>
  t.field({
    type: Pet,
    description: 'Add an animal. Answers with the stored record, including the assigned `id`.',
    args: { input: t.arg({ type: NewPet, required: true, description: 'The animal to add.' }) },
    resolve: (_root, { input }, { pets }) => {
      checkName(input.name);
      return pets.create(input as NewPetInput);
    },
  }),
);
