/** A GraphQL document against its release, by GraphQL Inspector (richer than graphql-js's findBreakingChanges: it names dangerous and safe changes too). */
import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { buildSchema } from 'graphql';
import type { ContractChange, Level } from './change.js';
import { graphqlRemoval } from './deprecated-first.js';

const LEVELS: Record<CriticalityLevel, Level> = {
  [CriticalityLevel.Breaking]: 'breaking',
  [CriticalityLevel.Dangerous]: 'dangerous',
  [CriticalityLevel.NonBreaking]: 'non-breaking',
};

// A subgraph's SDL uses federation's directives without defining them: build what the text says, unvalidated.
const build = (sdl: string) => buildSchema(sdl, { assumeValidSDL: true });

export async function graphqlChanges(document: string, released: string, current: string): Promise<ContractChange[]> {
  const before = build(released);
  const changes = await diff(before, build(current));
  return changes.map((change) => {
    const undeprecated = change.criticality.level === CriticalityLevel.Breaking ? graphqlRemoval(before, change.type, change.path) : undefined;
    return {
      document,
      level: LEVELS[change.criticality.level],
      id: change.path ? `${change.type} ${change.path}` : change.type,
      message: change.message,
      ...(undeprecated ? { undeprecated } : {}),
    };
  });
}
