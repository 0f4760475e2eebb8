/**
 * `npm run build`'s second step, after tsc has checked and emitted: the server as production runs it,
 * dist/bundle/server.mjs (src/entry.ts) and its chunks, one minified ESM bundle of our code and the
 * libraries it imports. Node then loads a handful of files instead of about 2,200, and keeps their text,
 * minified, in a smaller heap.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { ownLinesOnly, type RawSourceMap } from './own-source-map.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = resolve(ROOT, 'dist/bundle');

/**
 * Loaded from node_modules at run time, never bundled:
 * - better-sqlite3: a native addon, which TypeORM requires by name; sqlite-lifetime.ts requires its
 *   lib/util.js, which must be the same copy's.
 * - mysql2 and ioredis: tracing's instrumentations patch them through require hooks (tracing/start.ts),
 *   which only see the copies in node_modules.
 * - pino and pino-pretty: pino.transport starts a worker from pino's own files, by path, and the worker
 *   loads pino-pretty by name.
 * What our code finds by path itself (GraphiQL's parts, Swagger UI's files) is never imported, so never bundled.
 */
const EXTERNAL = ['better-sqlite3', 'mysql2', 'ioredis', 'pino', 'pino-pretty'];

/**
 * esbuild reads the source maps libraries ship and maps their code to their own sources, which TypeORM's
 * name as src/...: ours would not be told from theirs. Without them a library's code maps to its file in
 * node_modules.
 */
const librariesUnmapped: Plugin = {
  name: 'libraries-unmapped',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/].*\.[cm]?js$/ }, async ({ path }) => ({
      contents: (await readFile(path, 'utf8')).replace(/^\/\/# sourceMappingURL=.*$/gm, ''),
      loader: 'js',
    }));
  },
};

const own = (mapFile: string) => (source: string) => {
  const path = relative(ROOT, resolve(dirname(mapFile), source));
  return /^(src|migrations)\//.test(path);
};

await rm(OUT, { recursive: true, force: true });
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
  minify: true,
  // Names are read at run time: a migration's class name is its row in the migrations table (migrate.ts
  // refuses a database with names it does not know: a minified build refused to start), TypeORM's errors
  // name themselves after their class, and a logged error's type and stack frames show them.
  keepNames: true,
  sourcemap: 'linked',
  sourcesContent: false,
  external: EXTERNAL,
  // The libraries written as CommonJS require Node's modules and the external ones: ESM has no require.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  plugins: [librariesUnmapped],
  write: false,
  logLevel: 'warning',
});

for (const file of outputFiles) {
  await mkdir(dirname(file.path), { recursive: true });
  const contents = file.path.endsWith('.map')
    ? JSON.stringify(ownLinesOnly(JSON.parse(file.text) as RawSourceMap, own(file.path)))
    : file.contents;
  await writeFile(file.path, contents);
}
