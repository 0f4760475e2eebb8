/**
 * An OpenAPI document with its `$ref`s replaced by what they point at, to compare operations as clients
 * see them. Only references inside the document are followed: one to a file or a URL is refused, so the
 * gate (and openapi-diff after it, which resolves what is left) never reads anything but the documents
 * it is given. A reference that would loop is left as it is.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const unescape = (token: string) => token.replaceAll('~1', '/').replaceAll('~0', '~');

/** Throws on a reference outside the document; openapi-diff would fetch it. */
export function assertLocalRefs(node: Json, where: string): void {
  if (Array.isArray(node)) node.forEach((item) => assertLocalRefs(item, where));
  else if (node !== null && typeof node === 'object') {
    const ref = node.$ref;
    if (typeof ref === 'string' && !ref.startsWith('#/')) throw new Error(`${where}: $ref "${ref}" points outside the document; the gate compares self-contained documents only`);
    Object.values(node).forEach((value) => assertLocalRefs(value, where));
  }
}

export function dereference(doc: Json, where: string): Json {
  assertLocalRefs(doc, where);
  const resolve = (ref: string) => ref.slice(2).split('/').map(unescape)
    .reduce<Json | undefined>((node, key) => (node !== null && typeof node === 'object' && !Array.isArray(node) ? node[key] : undefined), doc);
  const walk = (node: Json, seen: readonly string[]): Json => {
    if (Array.isArray(node)) return node.map((item) => walk(item, seen));
    if (node === null || typeof node !== 'object') return node;
    const ref = node.$ref;
    if (typeof ref === 'string') {
      if (seen.includes(ref)) return node;
      const target = resolve(ref);
      if (target === undefined) throw new Error(`${where}: $ref "${ref}" points at nothing`);
      return walk(target, [...seen, ref]);
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, walk(value, seen)]));
  };
  return walk(doc, []);
}
