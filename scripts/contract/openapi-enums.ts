/**
 * Enum values in request and response bodies. openapi-diff's schema comparison (json-schema-diff 0.18)
 * does not read `enum`: a status removed from a request body or added to a response passes it unseen.
 * The values at the same place of an operation both documents have are compared here, with GraphQL
 * Inspector's verdicts: a value a request no longer takes is breaking, a value a response may now hold is
 * dangerous (a client that switches over the values meets one it does not know), the others safe.
 * Parameters' enums are the parameter comparison's.
 */
import type { ContractChange, Level } from './change.js';
import type { Json } from './openapi-dereference.js';
import { isObject, type Operation } from './openapi-operations.js';

type Found = { place: string; added: Json[]; removed: Json[] };

function enumDifferences(before: Json | undefined, after: Json | undefined, place: string, found: Found[]): Found[] {
  if (Array.isArray(before) && Array.isArray(after)) after.forEach((item, index) => enumDifferences(before[index], item, `${place}.${index}`, found));
  if (!isObject(before) || !isObject(after)) return found;
  const [was, is] = [before.enum, after.enum];
  if (Array.isArray(was) && Array.isArray(is)) {
    const texts = (values: Json[]) => new Set(values.map((value) => JSON.stringify(value)));
    const [old, now] = [texts(was), texts(is)];
    const added = is.filter((value) => !old.has(JSON.stringify(value)));
    const removed = was.filter((value) => !now.has(JSON.stringify(value)));
    if (added.length > 0 || removed.length > 0) found.push({ place, added, removed });
  }
  for (const [key, value] of Object.entries(after)) if (key !== 'enum') enumDifferences(before[key], value, `${place}.${key}`, found);
  return found;
}

export function enumChanges(document: string, released: Map<string, Operation>, current: Map<string, Operation>): ContractChange[] {
  const changes: ContractChange[] = [];
  for (const [key, before] of released) {
    const after = current.get(key);
    if (!after) continue;
    const at = `paths.${after.path}.${after.method}`;
    const sides = [
      { side: 'request', found: enumDifferences(before.operation.requestBody, after.operation.requestBody, `${at}.requestBody`, []), onAdd: 'non-breaking', onRemove: 'breaking' },
      { side: 'response', found: enumDifferences(before.operation.responses, after.operation.responses, `${at}.responses`, []), onAdd: 'dangerous', onRemove: 'non-breaking' },
    ] as const;
    for (const { side, found, onAdd, onRemove } of sides) {
      for (const { place, added, removed } of found) {
        const list = (values: Json[]) => values.map((value) => JSON.stringify(value)).join(', ');
        const push = (level: Level, action: string, values: Json[]) => changes.push({
          document, level, id: `${side}.body.enum.${action} ${place}`, message: `enum value ${list(values)} ${action === 'add' ? 'added' : 'removed'}`,
        });
        if (added.length > 0) push(onAdd, 'add', added);
        if (removed.length > 0) push(onRemove, 'remove', removed);
      }
    }
  }
  return changes;
}
