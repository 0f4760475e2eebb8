import { css, editorWorkerService, favicon, graphqlWorker, js, jsonWorker } from '@graphql-yoga/render-graphiql/graphiql';
import { contentSecurityPolicy, inlineScriptHashes } from './content-security-policy.js';
import { fetcherScript } from './graphiql-fetcher.js';
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

const OPTIONS = {
  title: 'Animal Store GraphiQL',
  defaultQuery: EXAMPLE,
  headers: JSON.stringify({ Authorization: 'Bearer ' }, null, 2),
  // The key stays in the page's memory: a shared or borrowed browser keeps no API key in its storage.
  shouldPersistHeaders: false,
};

/** JSON inside a <script>: `</script>` and U+2028/9 in a string must not end or break it. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c')
  .replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

/**
 * yoga's GraphiQL page (its parts from @graphql-yoga/render-graphiql, no CDN: it works offline) with a
 * fetcher of our own, which never sends a stale operation name.
 */
function page(): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${OPTIONS.title}</title>
  <link rel="icon" href="${favicon}">
  <style>${css}</style>
</head>
<body id="body" class="no-focus-outline">
  <noscript>You need to enable JavaScript to run this app.</noscript>
  <div id="root"></div>
  <script>${fetcherScript(GRAPHQL_PATH)}</script>
  <script>
    const workerUrl = (source) => URL.createObjectURL(new Blob([source], { type: 'application/javascript' }));
    const workers = {
      editorWorkerService: workerUrl(${scriptJson(editorWorkerService)}),
      json: workerUrl(${scriptJson(jsonWorker)}),
      graphql: workerUrl(${scriptJson(graphqlWorker)}),
    };
    self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (moduleId, label) => workers[label] };
    ${js};
    YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'),
      Object.assign(${scriptJson(OPTIONS)}, { fetcher: window.animalStoreFetcher }));
  </script>
</body>
</html>
`;
}

/**
 * The page, its policy and its compressed form made once: yoga would rebuild its 9 MB on every request.
 * The policy allows the page's two inline scripts by hash, Monaco's workers from blob: URLs, and the
 * inline styles React and Monaco set at run time.
 */
export function graphiqlPage(): (request: Request) => Response {
  const html = page();
  const policy = contentSecurityPolicy({
    'script-src': inlineScriptHashes(html),
    'style-src': ["'unsafe-inline'"],
    'img-src': ['data:'],
    'font-src': ['data:'],
    'connect-src': ["'self'"],
    'worker-src': ['blob:'],
  });
  return staticAsset(html, 'text/html; charset=utf-8', 'no-cache', { 'content-security-policy': policy });
}
