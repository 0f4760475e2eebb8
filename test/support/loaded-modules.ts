/**
 * What a spawned service has loaded: put `LOADED_MODULES_OPTIONS` in its NODE_OPTIONS, then
 * `loadedModules(server)` asks it (SIGUSR2) for the URL of every module it has loaded so far, ours and
 * its packages', ESM and CommonJS (a path only resolved, as GraphiQL's builder resolves its bundle's, is
 * not loaded).
 *
 * Node 22.15 and later see both kinds in module.registerHooks, in the thread that loads them. Node 20's
 * module.register runs its hooks in a thread of their own (their URLs come back over a port), and they
 * see no require() made inside CommonJS: require's cache lists those.
 */
import type { ServerProcess } from './process.js';

const OFF_THREAD_HOOK = `
let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, next) {
  port.postMessage(url);
  return next(url, context);
}`;

const PRELOAD = `
import module, { createRequire } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const seen = new Set();
if (module.registerHooks) {
  module.registerHooks({ load(url, context, next) { seen.add(url); return next(url, context); } });
} else {
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (url) => seen.add(url));
  port1.unref();
  module.register('data:text/javascript,${encodeURIComponent(OFF_THREAD_HOOK)}', { data: { port: port2 }, transferList: [port2] });
}
process.on('SIGUSR2', () => {
  for (const file of Object.keys(createRequire(process.cwd() + '/').cache)) seen.add('file://' + file);
  process.stderr.write('loaded modules: ' + JSON.stringify([...seen]) + '\\n');
});`;

// NODE_OPTIONS splits on spaces and reads quotes: the data URL has neither.
export const LOADED_MODULES_OPTIONS = `--import=data:text/javascript,${encodeURIComponent(PRELOAD).replace(/'/g, '%27')}`;

const ANSWER = /^loaded modules: (.*)$/m;

/** The URLs of every module the server has loaded by now, as it answers SIGUSR2. */
export async function loadedModules(server: ServerProcess): Promise<string[]> {
  const from = server.output().length;
  server.child.kill('SIGUSR2');
  for (const started = Date.now(); Date.now() - started < 10_000; await new Promise((resolve) => setTimeout(resolve, 20))) {
    const answer = ANSWER.exec(server.output().slice(from));
    // Whole once its line has ended.
    if (answer && server.output().indexOf('\n', from + answer.index) >= 0) return JSON.parse(answer[1]!) as string[];
  }
  throw new Error(`no list of loaded modules within 10 s:\n${server.output().slice(-2000)}`);
}
