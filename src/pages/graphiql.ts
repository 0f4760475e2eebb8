import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { contentSecurityPolicy, inlineScriptHashes } from './content-security-policy.js';
import { fetcherScript } from './graphiql-fetcher.js';
import { onFirstRequest, type Answer } from './on-first-request.js';
import { gzippedAsset } from './static-asset.js';

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

/** Where a part of GraphiQL's bundle goes in the page: as it is, or as a JSON string (filled in by FILL). */
const part = (name: 'css' | 'favicon' | 'js' | 'editorWorkerService' | 'jsonWorker' | 'graphqlWorker', asJson = false) =>
  `\u0000${name}${asJson ? ':json' : ''}\u0000`;

/**
 * Runs in a worker thread: loads the bundle (a 9 MB module of string literals) and fills the page's
 * placeholders, with scriptJson itself for the JSON ones. Only the page's bytes come back: loaded in the
 * server's own thread, the module would hold about 40 MB of its heap for the life of the process.
 */
const FILL = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const parts = require(workerData.bundle);
const scriptJson = ${scriptJson};
const html = workerData.template.replace(/\x00(\w+)(:json)?\x00/g, (_, name, asJson) => (asJson ? scriptJson(parts[name]) : parts[name]));
const bytes = Buffer.from(html);
parentPort.postMessage(bytes, [bytes.buffer]);
`;

function fill(template: string): Promise<Buffer> {
  const bundle = createRequire(import.meta.url).resolve('@graphql-yoga/render-graphiql/graphiql');
  return new Promise((resolve, reject) => {
    const worker = new Worker(FILL, { eval: true, workerData: { bundle, template } });
    worker.once('message', (bytes: Uint8Array) => resolve(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`The GraphiQL page builder exited with code ${code}`)));
  });
}

/**
 * yoga's GraphiQL page (its parts from @graphql-yoga/render-graphiql, no CDN: it works offline) with a
 * fetcher of our own, which never sends a stale operation name.
 */
function template(endpoint: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${OPTIONS.title}</title>
  <link rel="icon" href="${part('favicon')}">
  <style>${part('css')}</style>
</head>
<body id="body" class="no-focus-outline">
  <noscript>You need to enable JavaScript to run this app.</noscript>
  <div id="root"></div>
  <script>${fetcherScript(endpoint)}</script>
  <script>
    const workerUrl = (source) => URL.createObjectURL(new Blob([source], { type: 'application/javascript' }));
    const workers = {
      editorWorkerService: workerUrl(${part('editorWorkerService', true)}),
      json: workerUrl(${part('jsonWorker', true)}),
      graphql: workerUrl(${part('graphqlWorker', true)}),
    };
    self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (moduleId, label) => workers[label] };
    ${part('js')};
    YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'),
      Object.assign(${scriptJson(OPTIONS)}, { fetcher: window.animalStoreFetcher }));
  </script>
</body>
</html>
`;
}

/**
 * The page and its policy, made once: yoga would rebuild its 9 MB on every request. The policy allows the
 * page's two inline scripts by hash, Monaco's workers from blob: URLs, and the inline styles React and
 * Monaco set at run time. Only the gzipped page is kept (about 2 MB of the 9).
 */
async function buildPage(endpoint: string): Promise<Answer> {
  const html = await fill(template(endpoint));
  const policy = contentSecurityPolicy({
    'script-src': inlineScriptHashes(html),
    'style-src': ["'unsafe-inline'"],
    'img-src': ['data:'],
    'font-src': ['data:'],
    'connect-src': ["'self'"],
    'worker-src': ['blob:'],
  });
  return gzippedAsset(html, 'text/html; charset=utf-8', 'no-cache', { 'content-security-policy': policy });
}

/** Pages by endpoint, for the life of the process: every app in it (the tests start dozens) serves the same bytes. */
const pages = new Map<string, (request: Request) => Promise<Response>>();

/**
 * The GraphiQL page for `endpoint`, built (in a worker thread) on its first request, once per process:
 * an instance nobody opens GraphiQL on never builds it.
 */
export function graphiqlPage(endpoint: string): (request: Request) => Promise<Response> {
  let page = pages.get(endpoint);
  if (!page) pages.set(endpoint, page = onFirstRequest('The GraphiQL page', () => buildPage(endpoint)));
  return page;
}
