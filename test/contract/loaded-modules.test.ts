import { describe, expect, it } from 'vitest';
import { loadedModules, LOADED_MODULES_OPTIONS } from '../support/loaded-modules.js';
import { productionLaunch } from '../support/launch.js';
import { listeningUrl, spawnedServers } from '../support/process.js';

const servers = spawnedServers();

/** The package a module's URL is in, or for one of ours its path under dist/ (the bundle's chunks, as launched). */
const packageOf = (url: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
const ours = (url: string) => (/\/dist\//.test(url) ? url.replace(/^.*\/dist\//, '') : undefined);
/** Tracing's own code: src/tracing/ in tsc's build, the chunk esbuild names after tracing/start.ts in the bundle. */
const isTracing = (file: string | undefined) => Boolean(file && /^(src\/tracing\/|bundle\/chunks\/start-)/.test(file));
/** The production heap flags, and the recorder: the test runs the service as launched. */
const nodeOptions = `${productionLaunch().env.NODE_OPTIONS ?? ''} ${LOADED_MODULES_OPTIONS}`.trim();

describe('an instance that only answers the API', () => {
  it('loads nothing of traces, GraphiQL or the pretty log printer, and still none of GraphiQL once its page is served', async () => {
    const { server } = await servers.start({ NODE_OPTIONS: nodeOptions, LOG_FORMAT: 'json' });
    const url = await listeningUrl(server);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const loaded = await loadedModules(server);
    // The list is real: the service's own modules and its packages are in it.
    expect(loaded.map(ours).some((file) => file && /^(src\/server\.js|bundle\/chunks\/server-)/.test(file))).toBe(true);
    const packages = new Set(loaded.map(packageOf));
    expect(packages).toContain('graphql-yoga');

    expect(loaded.map(ours).filter(isTracing)).toEqual([]);
    // prom-client requires @opentelemetry/api (for exemplars) whatever its settings: the API alone, no SDK.
    expect([...packages].filter((name) => name?.startsWith('@opentelemetry/'))).toEqual(['@opentelemetry/api']);
    expect(packages).not.toContain('@graphql-yoga/render-graphiql');
    expect(packages).not.toContain('pino-pretty');

    // GraphiQL's 9 MB bundle is loaded by the page's builder, in a thread of its own, never by the server's.
    expect((await fetch(`${url}/graphql`, { headers: { accept: 'text/html' } })).status).toBe(200);
    expect(new Set((await loadedModules(server)).map(packageOf))).not.toContain('@graphql-yoga/render-graphiql');
  });
});
