/**
 * The gate: every contract document against its release, and each breaking change against the
 * changelog's declarations. It passes when every breaking change is declared with the deprecation that
 * preceded it; dangerous and safe changes are listed, never refused.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContractChange } from './change.js';
import { breakingEntries, type Entry } from './changelog.js';
import { contractDocuments, type ContractDocument } from './documents.js';
import { graphqlChanges } from './graphql-changes.js';
import { openapiChanges } from './openapi-changes.js';

export interface Verdict {
  readonly change: ContractChange;
  /** The entry that declares it, when one does. */
  readonly declaredBy?: Entry;
  /** Why the entries that name it do not count, when none does. */
  readonly refused?: string;
}

export interface GateResult {
  readonly changes: readonly ContractChange[];
  readonly breaking: readonly Verdict[];
  readonly passed: boolean;
}

async function changesOf(document: ContractDocument): Promise<ContractChange[]> {
  const { name, kind, current, released } = document;
  if (current === undefined) return [{ document: name, level: 'breaking', id: `DOCUMENT_REMOVED ${name}`, message: `schema/${name} was removed` }];
  if (released === undefined) return [{ document: name, level: 'non-breaking', id: `DOCUMENT_ADDED ${name}`, message: `schema/${name} is new: it has no release to compare with yet` }];
  if (current === released) return [];
  return kind === 'graphql' ? graphqlChanges(name, released, current) : openapiChanges(name, released, current);
}

function verdict(change: ContractChange, entries: readonly Entry[]): Verdict {
  if (change.undeprecated) return { change, refused: change.undeprecated };
  const naming = entries.filter((entry) => entry.names.includes(change.id));
  const declaredBy = naming.find((entry) => entry.deprecation.ok);
  if (declaredBy) return { change, declaredBy };
  const why = naming.map((entry) => (entry.deprecation.ok ? '' : entry.deprecation.why)).find(Boolean);
  return { change, refused: why ? `the entry naming it does not count: ${why}` : 'not declared under "## Unreleased" / "### Breaking" in CHANGELOG.md' };
}

export async function runGate(root: string, today?: string): Promise<GateResult> {
  const changes = (await Promise.all(contractDocuments(root).map(changesOf))).flat();
  const changelog = join(root, 'CHANGELOG.md');
  const entries = existsSync(changelog) ? breakingEntries(readFileSync(changelog, 'utf8'), today) : [];
  const breaking = changes.filter((change) => change.level === 'breaking').map((change) => verdict(change, entries));
  return { changes, breaking, passed: breaking.every((one) => one.declaredBy) };
}
