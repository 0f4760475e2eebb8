/**
 * The architecture, checked by `npm test` (test/architecture.test.ts runs dependency-cruiser with this).
 * Each layer may import only from the layers below it, never from its own layer's other folders or from
 * above; no import circle; nothing in src/ imports from test/. CONTRIBUTING.md's Layout section draws the same.
 */
const LAYERS = [
  // Every setting's declaration and the readers of their text: config.ts reads them, documents quote them.
  ['settings'],
  ['errors', 'config', 'log', 'clock', 'production', 'migrations', 'one-at-a-time'],
  ['domain', 'redis', 'pipeline', 'closers'],
  ['graphql', 'schema', 'limits', 'events', 'db', 'pages'],
  ['rest', 'auth', 'federation'],
  // tracing wraps the steps and surfaces below it at assembly (app) and is started by main: beside ops,
  // the other observer of requests, and never imported by what it observes.
  ['idempotency', 'streams', 'documents', 'ops', 'reads', 'cache', 'webhooks', 'tracing', 'websocket', 'admin'],
  ['cli'],
  // The parts createApp builds the service from, in their order (stores first, the request steps last).
  ['assembly'],
  ['app'],
  ['server'],
  ['main'],
  // The production bundle's entry: source maps on before anything else loads.
  ['entry'],
];

/** A folder of src/, a top-level file of src/ (without .ts), or the migrations folder beside src/. */
const path = (node) => (node === 'migrations' ? '^migrations/' : `^src/${node}(/|\\.ts$)`);

const upward = LAYERS.flatMap((layer, i) => layer.map((node) => ({
  targets: LAYERS.slice(i).flat().filter((other) => other !== node),
  name: `layers: ${node}`,
  comment: `${node} (layer ${i + 1}) may import only from the layers below it: ${LAYERS.slice(0, i).flat().join(', ') || 'none'}`,
  severity: 'error',
  from: { path: path(node) },
})).filter(({ targets }) => targets.length > 0).map(({ targets, ...rule }) => ({ ...rule, to: { path: targets.map(path) } })));

module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'An import circle makes two modules one', severity: 'error', from: {}, to: { circular: true } },
    { name: 'src-not-from-test', comment: 'The service never imports its tests', severity: 'error', from: { path: '^(src|migrations)/' }, to: { path: '^test/' } },
    {
      name: 'layers: unknown folder',
      comment: 'Every folder and top-level file of src/ has a layer in .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/', pathNot: LAYERS.flat().map(path) },
      to: {},
    },
    ...upward,
    {
      name: 'tracing: nothing loaded when off',
      comment: 'With traces off no OpenTelemetry code is loaded: main.ts imports tracing dynamically, once OTEL_* turn it on; the rest of src/ imports its types only',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/main\\.ts$', '^src/tracing/'] },
      to: { path: ['^src/tracing/', '@opentelemetry/'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'tracing: started before the server is loaded',
      comment: 'Instrumentations patch mysql2 and ioredis as they load: main.ts imports tracing and the server dynamically, tracing first',
      severity: 'error',
      from: { path: '^src/main\\.ts$' },
      to: { path: ['^src/tracing/', '^src/server\\.ts$'], dependencyTypesNot: ['dynamic-import'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are dependencies of the design too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(node_modules|dist)/' },
  },
};
