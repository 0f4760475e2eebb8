import SchemaBuilder from '@pothos/core';
import type { PetStore } from '../db/pets.js';

/** What every resolver gets, on both surfaces. */
export interface Context {
  readonly pets: PetStore;
}

export const builder = new SchemaBuilder<{
  Context: Context;
  Scalars: { SafeInt: { Input: number; Output: number } };
  DefaultFieldNullability: false;
}>({ defaultFieldNullability: false });

builder.queryType({});
builder.mutationType({});
