import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { GRAPHQL_PATH } from './graphql.js';

const EXAMPLE = `# Welcome to the Animal Store. Put your key in the Headers tab below, then run:
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
export function graphiqlPage(): string {
  return renderGraphiQL({
    endpoint: GRAPHQL_PATH,
    title: 'Animal Store GraphiQL',
    defaultQuery: EXAMPLE,
    headers: JSON.stringify({ Authorization: 'Bearer ' }, null, 2),
  });
}

export function wantsHtml(request: Request): boolean {
  return request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html');
}
