import { appError } from '../errors.js';

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

/** A pet: the one statement of its fields, from which the others below are made. */
export interface PetRecord {
  id: number;
  name: string;
  categoryId: number;
  status: PetStatus;
}

/** A new pet: every field but the id the store gives it. */
export type NewPetInput = Omit<PetRecord, 'id'>;

/** The fields a client may change: its status follows its orders, its id never changes. */
export const CHANGEABLE_PET_FIELDS = ['name', 'categoryId'] as const satisfies readonly (keyof PetRecord)[];

/** What a client may change of a pet, each field optional (null: left out, as a merge patch may send it). */
export type PetChange = { [F in (typeof CHANGEABLE_PET_FIELDS)[number]]?: PetRecord[F] | null };
/** A change once checked: the fields to set, none null. */
export type PetFieldsToSet = { [F in (typeof CHANGEABLE_PET_FIELDS)[number]]?: PetRecord[F] };

export const NAME_MAX_CHARACTERS = 255;

/** Unicode's control characters (Cc: C0, DEL and C1), as a character class's ranges. */
const CONTROL = '\\u0000-\\u001F\\u007F-\\u009F';
const VISIBLE = /\S/u;
const CONTROL_CHARACTER = new RegExp(`[${CONTROL}]`, 'u');

/**
 * The rules checkName enforces that JSON Schema can state, for the OpenAPI document: a length in code points
 * (as JSON Schema, checkName and MySQL count), a character that is not white space, no control character.
 * Only well-formedness (no lone surrogate) is left to the description.
 */
export const NAME_RULES = {
  minLength: 1,
  maxLength: NAME_MAX_CHARACTERS,
  pattern: `^(?=[\\s\\S]*${VISIBLE.source})[^${CONTROL}]*$`,
} as const;

/** The rules a type system cannot say; a name is counted in Unicode characters, as MySQL counts them. */
export function checkName(name: string): void {
  if (!name.isWellFormed()) throw appError('BAD_REQUEST', '"name" must be valid Unicode text');
  if (!VISIBLE.test(name)) throw appError('BAD_REQUEST', '"name" must contain at least one character that is not white space');
  if (CONTROL_CHARACTER.test(name)) throw appError('BAD_REQUEST', '"name" must not contain control characters');
  const length = [...name].length;
  if (length > NAME_MAX_CHARACTERS) {
    throw appError('BAD_REQUEST', `"name" must be at most ${NAME_MAX_CHARACTERS} characters, got ${length}`);
  }
}

/**
 * A change holds at least one field, and none is null: a merge patch's null removes a field, and a pet
 * has no field that may be removed. Returns the fields to set.
 */
export function checkPetChange(change: PetChange): PetFieldsToSet {
  const fields = Object.entries(change).filter(([, value]) => value !== undefined);
  if (fields.length === 0) throw appError('BAD_REQUEST', `The change is empty: send at least one of ${CHANGEABLE_PET_FIELDS.map((field) => `"${field}"`).join(', ')}`);
  for (const [field, value] of fields) {
    if (value === null) throw appError('BAD_REQUEST', `"${field}" cannot be removed: send a new value or leave it out`);
  }
  if (typeof change.name === 'string') checkName(change.name);
  return change as PetFieldsToSet;
}

export const petNotFound = (petId: number) => appError('NOT_FOUND', `Pet ${petId} not found`);
