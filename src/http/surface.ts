import type { Surface } from '../errors.js';
import { GRAPHQL_PATH } from './graphql.js';

/** Which shape an error takes on this path: GraphQL-over-HTTP under /graphql, the Error body elsewhere. */
export function surfaceOf(url: URL): Surface {
  return url.pathname === GRAPHQL_PATH || url.pathname.startsWith(`${GRAPHQL_PATH}/`) ? 'graphql' : 'rest';
}
