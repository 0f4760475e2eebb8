import { parseGlobalId } from '../domain/global-ids.js';
import { isSafeId } from '../domain/ids.js';
import { appError } from '../errors.js';
import { ENTITIES, isEntityType, type EntityType } from './entities.js';

/**
 * At most this many representations in one `_entities` field. A router sends, in one fetch, every
 * reference one step of its plan found (deduplicated): five of our largest pages (100 records) with a
 * reference each, or one page whose records each name five. More is refused whole before anything is
 * counted or read (400); within it, the node limit and the points count every one (entities-cost.ts).
 */
export const MAX_REPRESENTATIONS = 500;

/** Representations one point reads: as many as `nodes(ids:)` reads for its point. */
export const REPRESENTATIONS_PER_POINT = 100;

const TYPES = Object.keys(ENTITIES).join(' and ');

/** What a refusal shows of a value: enough to recognise it, never a whole large input. */
const shown = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
};

/**
 * The record a representation names: `{__typename, id}` (the integer id) or `{__typename, nodeId}` (its
 * global id, which must name a record of that type). Anything else is BAD_REQUEST naming its place: not
 * an object, a type that is no entity of ours, a key field missing or of the wrong type. Fields beyond
 * the key (a router may send more) are ignored.
 */
export function readRepresentation(value: unknown, place: string): { type: EntityType; id: number } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw appError('BAD_REQUEST', `${place} must be an object with "__typename" and a key field ("id" or "nodeId"), got ${shown(value)}`);
  }
  const fields = value as Record<string, unknown>;
  const type = fields.__typename;
  if (!isEntityType(type)) {
    throw appError('BAD_REQUEST', `${place}.__typename must name an entity of this subgraph (${TYPES}), got ${shown(type)}`);
  }
  if (Object.hasOwn(fields, 'id')) {
    const { id } = fields;
    if (typeof id !== 'number' || !isSafeId(id)) throw appError('BAD_REQUEST', `${place}.id must be an integer from 1 to 2^53-1, got ${shown(id)}`);
    return { type, id };
  }
  if (Object.hasOwn(fields, 'nodeId')) {
    const { nodeId } = fields;
    if (typeof nodeId !== 'string') throw appError('BAD_REQUEST', `${place}.nodeId must be a global id (a string), got ${shown(nodeId)}`);
    const named = parseGlobalId(nodeId, `${place}.nodeId`);
    if (named.type !== type) throw appError('BAD_REQUEST', `${place}.nodeId names a ${named.type}, not a ${type}`);
    return { type, id: named.id };
  }
  throw appError('BAD_REQUEST', `${place} has no key field: a ${type} is named by "id" or "nodeId"`);
}
