/** A document's operations by path and method, the unit both the parameter diff and the narrowing of openapi-diff's input work on. */
import type { Json } from './openapi-dereference.js';

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export type JsonObject = { [key: string]: Json };
export const isObject = (node: Json | undefined): node is JsonObject => node !== null && typeof node === 'object' && !Array.isArray(node);

/**
 * A path template with its parameters' names left out (`/pets/{}`): a parameter renamed in the template
 * changes no URL a client sends, and openapi-diff matches paths the same way.
 */
export const templateOf = (path: string) => path.replace(/\{[^}]*\}/g, '{}');

export interface Operation {
  readonly path: string;
  readonly method: string;
  /** The operation with its path item's shared fields (parameters, servers), dereferenced: what a client of it depends on. */
  readonly operation: JsonObject;
  /** Its parameters, the path item's and its own (its own win, by location and name), dereferenced. */
  readonly parameters: JsonObject[];
}

const parameterKey = (parameter: JsonObject) => `${String(parameter.in)}:${String(parameter.name)}`;
const parametersOf = (node: Json | undefined) => (Array.isArray(node) ? node.filter(isObject) : []);
const mergedParameters = (shared: Json | undefined, own: Json | undefined) => [
  ...new Map([...parametersOf(shared), ...parametersOf(own)].map((parameter) => [parameterKey(parameter), parameter])).values(),
];

/** Operations keyed `METHOD template`. */
export function operationsOf(doc: Json): Map<string, Operation> {
  const operations = new Map<string, Operation>();
  const paths = isObject(doc) && isObject(doc.paths) ? doc.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    const shared = Object.fromEntries(Object.entries(item).filter(([key]) => !(METHODS as readonly string[]).includes(key)));
    for (const method of METHODS) {
      const operation = item[method];
      if (isObject(operation)) operations.set(`${method} ${templateOf(path)}`, { path, method, operation: { ...shared, ...operation }, parameters: mergedParameters(item.parameters, operation.parameters) });
    }
  }
  return operations;
}
