/** A GraphQL document against its release, by GraphQL Inspector (richer than graphql-js's findBreakingChanges: it names dangerous and safe changes too). */
import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { buildSchema } from 'graphql';
import type { ContractChange, Level } from './change.js';

const LEVELS: Record<CriticalityLevel, Level> = {
  [CriticalityLevel.Breaking]: 'breaking',
  [CriticalityLevel.Dangerous]: 'dangerous',
  [CriticalityLevel.NonBreaking]: 'non-breaking',
};

// A subgraph's SDL uses federation's directives without defining them: build what the text says, unvalidated.
const build = (sdl: string) => buildSchema(sdl, { assumeValidSDL: true });

export async function graphqlChanges(document: string, released: string, current: string): Promise<ContractChange[]> {
  const changes = await diff(build(released), build(current));
  return changes.map((change) => ({
    document,
    level: LEVELS[change.criticality.level],
    id: change.path ? `${change.type} ${change.path}` : change.type,
    message: change.message,
  }));
}
