/**
 * GraphQL documents whose answer fans out: aliases of list fields at every level, through fragments, so
 * that a document of about a kilobyte, within every other operation limit, asks for millions of nodes.
 */

const aliased = (k: number, field: string, spread: string) =>
  Array.from({ length: k }, (_, i) => `${field.replace(/\W/g, '')}${i}: ${field} { ...${spread} }`).join(' ');

/**
 * The introspection form (any key, no data): types × fields × type × fields × args × type, each aliased
 * k times (graphql-js refuses `fields` nested three deep, not `args`). Depth 8, one root field, one point.
 */
export function introspectionFanOut(k = 6): string {
  return [
    `{ __schema { ${aliased(k, 'types', 'T1')} } }`,
    `fragment T1 on __Type { name ${aliased(k, 'fields', 'F1')} }`,
    `fragment F1 on __Field { name ${aliased(k, 'type', 'T2')} }`,
    `fragment T2 on __Type { name ${aliased(k, 'fields', 'F2')} }`,
    `fragment F2 on __Field { name ${aliased(k, 'args', 'A2')} }`,
    `fragment A2 on __InputValue { name ${aliased(k, 'type', 'T3')} }`,
    'fragment T3 on __Type { name kind }',
  ].join('\n');
}

/**
 * The store form: a page of pets, each pet's orders, each order's pet, and so on, every list and object
 * aliased k times. Depth 8, `roots` root fields.
 */
export function storeFanOut(k = 6, roots = 1): string {
  const root = Array.from({ length: roots }, (_, i) => `p${i}: pets(limit: 100) { ...P1 }`).join(' ');
  return [
    `{ ${root} }`,
    `fragment P1 on Pet { id ${aliased(k, 'orders', 'O1')} }`,
    `fragment O1 on Order { id ${aliased(k, 'pet', 'P2')} }`,
    `fragment P2 on Pet { id ${aliased(k, 'orders', 'O2')} }`,
    `fragment O2 on Order { id ${aliased(k, 'pet', 'P3')} }`,
    `fragment P3 on Pet { id ${aliased(k, 'orders', 'O3')} }`,
    `fragment O3 on Order { id ${aliased(k, 'pet', 'P4')} }`,
    'fragment P4 on Pet { id name }',
  ].join('\n');
}
