/**
 * Which documents are the released contract: every `*.graphql` and `*openapi*.json` in schema/, so a new
 * one (a federation subgraph, say) is held without being listed here, each compared with its copy of the
 * same name in schema/released/.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const SCHEMA_DIR = 'schema';
export const RELEASED_DIR = 'schema/released';

export type DocumentKind = 'graphql' | 'openapi';

export interface ContractDocument {
  readonly name: string;
  readonly kind: DocumentKind;
  /** The committed text; absent when the document was removed. */
  readonly current?: string;
  /** The released text; absent when the document is new since the last release. */
  readonly released?: string;
}

export function kindOf(name: string): DocumentKind | undefined {
  if (name.endsWith('.graphql')) return 'graphql';
  if (name.endsWith('.json') && name.includes('openapi')) return 'openapi';
  return undefined;
}

const namesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((name) => kindOf(name) !== undefined) : []);
const textOf = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);

/** The documents of the checkout at `root`, current and released, in name order. */
export function contractDocuments(root: string): ContractDocument[] {
  const names = [...new Set([...namesIn(join(root, SCHEMA_DIR)), ...namesIn(join(root, RELEASED_DIR))])].sort();
  return names.map((name) => {
    const current = textOf(join(root, SCHEMA_DIR, name));
    const released = textOf(join(root, RELEASED_DIR, name));
    return { name, kind: kindOf(name)!, ...(current === undefined ? {} : { current }), ...(released === undefined ? {} : { released }) };
  });
}
