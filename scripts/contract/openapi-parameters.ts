/**
 * Parameters of the operations both documents have. openapi-diff 0.24 compares paths, methods, request
 * bodies and responses, never parameters: without this a query parameter removed or renamed, or one made
 * required, would pass the gate. A parameter is matched by location and name (a header's name in any
 * case; a path parameter by its place in the template, since its name is no part of the URL).
 */
import type { ContractChange, Level } from './change.js';
import { parameterRemoval } from './deprecated-first.js';
import type { Json } from './openapi-dereference.js';
import { isObject, type JsonObject, type Operation } from './openapi-operations.js';

const keyOf = (parameter: JsonObject, path: string) => {
  const name = String(parameter.name);
  if (parameter.in === 'path') return `path#${path.split(/(?=\{)/).findIndex((part) => part.startsWith(`{${name}}`))}`;
  return parameter.in === 'header' ? `header:${name.toLowerCase()}` : `${String(parameter.in)}:${name}`;
};
const byKey = (operation: Operation) => new Map(operation.parameters.map((parameter) => [keyOf(parameter, operation.path), parameter]));
const required = (parameter: JsonObject) => parameter.in === 'path' || parameter.required === true;
const same = (a: Json | undefined, b: Json | undefined) => JSON.stringify(a) === JSON.stringify(b);

// What a schema says about the values it takes, without what only documents them.
const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly']);
const LOWER = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems']);
const UPPER = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems']);

/** How the values a parameter takes changed: only more of them (safe), or some no longer taken, or another kind of change. */
function schemaChange(before: Json | undefined, after: Json | undefined): 'same' | 'wider' | 'narrower' | 'changed' {
  const a = isObject(before) ? before : {};
  const b = isObject(after) ? after : {};
  const verdicts = [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((key) => !ANNOTATIONS.has(key) && !key.startsWith('x-') && !same(a[key], b[key]))
    .map((key) => {
      const was = a[key];
      const is = b[key];
      if (key === 'enum') {
        const old = Array.isArray(was) ? was.map((value) => JSON.stringify(value)) : undefined;
        const now = Array.isArray(is) ? is.map((value) => JSON.stringify(value)) : undefined;
        if (!now) return 'wider';
        if (!old) return 'narrower';
        return old.every((value) => now.includes(value)) ? 'wider' : 'narrower';
      }
      if (LOWER.has(key) || UPPER.has(key)) {
        if (is === undefined) return 'wider';
        if (was === undefined || typeof was !== 'number' || typeof is !== 'number') return 'narrower';
        return (LOWER.has(key) ? is < was : is > was) ? 'wider' : 'narrower';
      }
      return 'changed';
    });
  if (verdicts.includes('changed')) return 'changed';
  if (verdicts.includes('narrower')) return 'narrower';
  return verdicts.length > 0 ? 'wider' : 'same';
}

export function parameterChanges(document: string, released: Map<string, Operation>, current: Map<string, Operation>): ContractChange[] {
  const changes: ContractChange[] = [];
  for (const [key, before] of released) {
    const after = current.get(key);
    if (!after) continue; // a removed operation is openapi-diff's method.remove or path.remove
    const was = byKey(before);
    const now = byKey(after);
    const add = (level: Level, code: string, parameter: JsonObject, message: string, undeprecated?: string) => changes.push({
      document, level, id: `${code} paths.${after.path}.${after.method}.parameters.${String(parameter.in)}.${String(parameter.name)}`,
      message: `${after.method.toUpperCase()} ${after.path}: ${parameter.in} parameter "${String(parameter.name)}" ${message}`,
      ...(undeprecated ? { undeprecated } : {}),
    });
    for (const [name, old] of was) {
      const parameter = now.get(name);
      if (!parameter) {
        add('breaking', 'parameter.remove', old, 'was removed (or renamed): clients that send it lose what it did',
          parameterRemoval(old, `${before.method.toUpperCase()} ${before.path}: ${String(old.in)} parameter "${String(old.name)}"`));
        continue;
      }
      if (!required(old) && required(parameter)) add('breaking', 'parameter.required.set', parameter, 'became required');
      if (required(old) && !required(parameter)) add('non-breaking', 'parameter.required.unset', parameter, 'became optional');
      const change = schemaChange(isObject(old.schema) ? old.schema : undefined, isObject(parameter.schema) ? parameter.schema : undefined);
      if (change === 'narrower') add('breaking', 'parameter.schema.narrow', parameter, 'takes fewer values than before');
      if (change === 'changed') add('breaking', 'parameter.schema.change', parameter, 'changed its schema');
      if (change === 'wider') add('non-breaking', 'parameter.schema.widen', parameter, 'takes more values than before');
      const defaults = [old, parameter].map((one) => (isObject(one.schema) ? one.schema.default : undefined));
      if (!same(defaults[0], defaults[1])) add('dangerous', 'parameter.default.change', parameter, `changed its default from ${JSON.stringify(defaults[0])} to ${JSON.stringify(defaults[1])}: clients that leave it out get other answers`);
      if (old.deprecated !== true && parameter.deprecated === true) add('non-breaking', 'parameter.deprecated.add', parameter, 'was deprecated');
    }
    for (const [name, parameter] of now) {
      if (was.has(name)) continue;
      if (required(parameter)) add('breaking', 'parameter.required.add', parameter, 'was added, required: clients that do not send it are refused');
      else add('non-breaking', 'parameter.optional.add', parameter, 'was added, optional');
    }
  }
  return changes;
}
