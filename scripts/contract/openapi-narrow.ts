/**
 * openapi-diff's input cut down to what differs. openapi-diff runs json-schema-diff on every request and
 * response body of every operation the two documents share, changed or not: about 4 s for openapi.json
 * against an identical copy, and as long again for each field changed in a schema many operations share.
 * What is the same on both sides once dereferenced can add nothing to its result, so both documents keep
 * only the operations that differ or that one side lacks, and of an operation on both sides only the
 * request body and the responses that differ (one response at least, as OpenAPI requires). The rest of the
 * documents, components included, stays as it is.
 */
import type { Json } from './openapi-dereference.js';
import { isObject, METHODS, type JsonObject, type Operation } from './openapi-operations.js';

const text = (node: Json | undefined) => JSON.stringify(node);

/** The parts of a raw operation worth diffing against the other side's (dereferenced) one. */
function differingParts(raw: JsonObject, own: Operation, other: Operation | undefined): JsonObject {
  if (!other) return raw;
  const responses = isObject(raw.responses) ? raw.responses : {};
  const ownResponses = isObject(own.operation.responses) ? own.operation.responses : {};
  const otherResponses = isObject(other.operation.responses) ? other.operation.responses : {};
  const differing = Object.keys(responses).filter((code) => text(ownResponses[code]) !== text(otherResponses[code]));
  const kept = differing.length > 0 ? differing : Object.keys(responses).slice(0, 1);
  const { requestBody, ...rest } = raw;
  const bodyDiffers = text(own.operation.requestBody) !== text(other.operation.requestBody);
  return { ...rest, ...(bodyDiffers && requestBody !== undefined ? { requestBody } : {}), responses: Object.fromEntries(kept.map((code) => [code, responses[code]!])) };
}

function narrowed(doc: JsonObject, keep: ReadonlyArray<[Operation, Operation | undefined]>): JsonObject {
  const paths: JsonObject = {};
  const source = isObject(doc.paths) ? doc.paths : {};
  for (const [own, other] of keep) {
    const item = source[own.path];
    const raw = isObject(item) ? item[own.method] : undefined;
    if (!isObject(item) || !isObject(raw)) continue;
    const shared = Object.fromEntries(Object.entries(item).filter(([key]) => !(METHODS as readonly string[]).includes(key)));
    const earlier = paths[own.path];
    paths[own.path] = { ...shared, ...(isObject(earlier) ? earlier : {}), [own.method]: differingParts(raw, own, other) };
  }
  return { ...doc, paths };
}

export function differingOperations(
  released: JsonObject, current: JsonObject, releasedOperations: Map<string, Operation>, currentOperations: Map<string, Operation>,
): [JsonObject, JsonObject] {
  const keep = (own: Map<string, Operation>, other: Map<string, Operation>) => [...own]
    .filter(([key, operation]) => text(operation.operation) !== text(other.get(key)?.operation))
    .map(([key, operation]): [Operation, Operation | undefined] => [operation, other.get(key)]);
  return [narrowed(released, keep(releasedOperations, currentOperations)), narrowed(current, keep(currentOperations, releasedOperations))];
}
