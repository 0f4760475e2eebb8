import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { GRAPHQL_PATH } from './graphql.js';
import { staticAsset } from './static-asset.js';

const EXAMPLE = `# Welcome to the Animal Store API.
# 1. In the Headers tab below, complete the
#    Authorization line with your API key. Make one with
#    npm run --silent keys -- create --plan free
# 2. Re-fetch the schema (⟳, bottom left) for the docs.
# 3. Run this query (▶).

query ListPets {
  pets(limit: 5, status: available) {
    id
    name
    categoryId
    status
  }
}
`;

/**
 * The self-contained page (no CDN: it works offline), rendered once: yoga would rebuild its 9 MB on
 * every request.
 */
export function graphiqlPage(): (request: Request) => Response {
  return staticAsset(renderGraphiQL({
    endpoint: GRAPHQL_PATH,
    title: 'Animal Store GraphiQL',
    defaultQuery: EXAMPLE,
    headers: JSON.stringify({ Authorization: 'Bearer ' }, null, 2),
  }), 'text/html; charset=utf-8');
}

export function wantsHtml(request: Request): boolean {
  return request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html');
}
