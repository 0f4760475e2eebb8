/**
 * `npm run build`'s second step, after tsc has checked and emitted: the server as production runs it,
 * dist/bundle/server.mjs (src/entry.ts) and its chunks, our code in one minified ESM bundle with source
 * maps cut down to our own files, so that a stack trace in a log names src/... and its line.
 */
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ownLinesOnly, type RawSourceMap } from './own-source-map.js';
import { publish } from './publish-bundle.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = resolve(ROOT, 'dist/bundle');

/**
 * Our code only: every package is loaded from node_modules at run time, as tsc's build loads it. Bundled,
 * the libraries cost throughput (the shared bench, same run, five rounds: a page of 20 pets 4,977 req/s
 * against 5,525 for tsc's build, where our code alone bundled gave 5,282; 5-10% in three runs), since
 * esbuild reaches a CommonJS library's exports through getters; and tracing's instrumentations patch
 * mysql2 and ioredis through require hooks, which see only node_modules' copies. better-sqlite3 (a native
 * addon), pino's transport worker and GraphiQL's and Swagger UI's files are found there by path anyway.
 */

const own = (mapFile: string) => (source: string) => {
  const path = relative(ROOT, resolve(dirname(mapFile), source));
  return /^(src|migrations)\//.test(path);
};

const { outputFiles } = await build({
  absWorkingDir: ROOT,
  entryPoints: { server: 'src/entry.ts' },
  outdir: OUT,
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // main.ts loads tracing (only when OTEL_* ask for it) and then the server with import(): chunks of their own.
  splitting: true,
  // Whitespace and syntax minified, identifiers kept: names are read at run time (a migration's class name
  // is its row in the migrations table, and migrate.ts refuses a database with names it does not know;
  // TypeORM's errors name themselves after their class; a logged error's type and stack frames show
  // them). esbuild's keepNames would keep them after renaming, at the price of a call that defines the
  // name of every function each time one is made (3,267 such calls in the server's chunk, closures made
  // per request among them).
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  sourcesContent: false,
  packages: 'external',
  write: false,
  logLevel: 'warning',
});

// Not written over the last build: instances started from it may still import its chunks (publish-bundle.ts).
await publish(OUT, 'server.mjs', outputFiles.map((file) => ({
  path: relative(OUT, file.path).split(sep).join('/'),
  contents: file.path.endsWith('.map')
    ? Buffer.from(JSON.stringify(ownLinesOnly(JSON.parse(file.text) as RawSourceMap, own(file.path))))
    : file.contents,
})));
