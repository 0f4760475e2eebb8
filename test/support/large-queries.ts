/** Large legitimate GraphQL queries: what GRAPHQL_MAX_NODES must let through. */
const PET = 'id name categoryId status';
const ORDER = 'id petId status complete placedAt';
const roots = (n: number, field: (i: number) => string) => `{ ${Array.from({ length: n }, (_, i) => field(i)).join(' ')} }`;

export const LARGEST_QUERIES: Readonly<Record<string, string>> = {
  '20 root lists of 100 pets': roots(20, (i) => `p${i}: pets(limit: 100) { ${PET} }`),
  '20 root lists of 100 pets, each with its orders': roots(20, (i) => `p${i}: pets(limit: 100) { ${PET} orders { ${ORDER} } }`),
  '20 root lists of 100 orders, each with its pet': roots(20, (i) => `o${i}: orders(limit: 100) { ${ORDER} pet { ${PET} } }`),
  '15 connections of 100 pets, each with its orders': roots(15, (i) =>
    `c${i}: petsConnection(first: 100) { edges { cursor node { ${PET} orders { ${ORDER} } } } pageInfo { hasNextPage endCursor } }`),
};
