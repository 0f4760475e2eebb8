/**
 * The production bundle's entry (dist/bundle/server.mjs, scripts/bundle.ts): source maps on, then the
 * service. A stack trace in a log then names src/... instead of a place in a minified chunk. Node reads
 * the maps of the files loaded after this, so everything else is loaded by import(), from here.
 */
import './production.js';
import module from 'node:module';

// Node 22.14 and later: our own maps only, none of node_modules' (process.setSourceMapsEnabled reads those too).
const setSourceMapsSupport = (module as { setSourceMapsSupport?: (enabled: boolean) => void }).setSourceMapsSupport;
if (setSourceMapsSupport) setSourceMapsSupport(true);
else process.setSourceMapsEnabled(true);

await import('./main.js');
