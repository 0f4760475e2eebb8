import './production.js';
import { ConfigError, loadConfig } from './config.js';
import { configureLog, flushLog, log } from './log.js';
import { startMemoryTrim } from './ops/memory-trim.js';

async function main(): Promise<void> {
  const config = loadConfig();
  configureLog({ level: config.logLevel, pretty: config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY) });
  // Tracing's instrumentations patch mysql2 and ioredis as they load: the SDK starts before the server's
  // modules are imported, and with traces off it is never loaded at all.
  const tracing = config.tracing && (await import('./tracing/start.js')).startTracing(config.tracing);
  const { serve, requestsSoFar } = await import('./server.js');
  const running = await serve(config, { tracing });
  const trim = startMemoryTrim(config.memoryTrimSeconds, { requests: requestsSoFar });
  let stopping = false;
  let endWindow = () => {};
  const stop = (signal: string) => {
    // A second signal: the operator will not wait out the window.
    if (stopping) return endWindow();
    stopping = true;
    trim.stop();
    const { drainSeconds } = config;
    running.leave();
    log.info({ signal, drainSeconds }, drainSeconds > 0
      ? `shutting down: /readyz fails from now on; serving for ${drainSeconds} s more, then finishing in-flight requests`
      : 'shutting down: finishing in-flight requests');
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, drainSeconds * 1_000);
      endWindow = () => { clearTimeout(timer); resolve(); };
    }).then(() => {
      if (drainSeconds > 0) log.info('closing the listener: finishing in-flight requests');
      // Once closed, every request answered has logged its line: exit waits until the lines are on stdout.
      return running.close();
    }).then(
      () => exit(0),
      (error: unknown) => { log.error({ err: error }, 'shutdown failed'); return exit(1); },
    );
  };
  // Before the line that says the service listens: whoever reads it may signal at once.
  // An operator (or a deployment) that wrote a new trusted-documents manifest asks for it to be read.
  process.on('SIGHUP', () => { running.app.reloadDocuments(); });
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  const { url } = running;
  log.info({
    url,
    rest: `${url}/v1/pets`,
    docs: `${url}/v1/docs (OpenAPI: ${url}/v1/openapi.json)`,
    graphql: `${url}/graphql (open it in a browser for GraphiQL)`,
    probes: `${url}/healthz ${url}/readyz ${url}/metrics`,
    ...(running.adminUrl ? { admin: `${running.adminUrl}/admin/keys (OpenAPI: ${running.adminUrl}/admin/openapi.json)` } : {}),
    ...running.app.backends,
    ...(config.database.kind === 'sqlite' ? { firstKey: 'npm run --silent keys -- create --plan free' } : {}),
  }, `Animal Store API listening on ${url}`);
  // Lines are written in blocks: whoever waits for this one (an operator, a supervisor) gets it now.
  log.flush();
}

/** Ends the process once the log's lines are out. */
const exit = (code: number) => flushLog().then(() => process.exit(code));

main().catch((error: unknown) => {
  // A bad setting is the operator's to fix: say which, without a stack trace.
  if (error instanceof ConfigError) console.error(error.message);
  else log.fatal({ err: error }, 'startup failed');
  return exit(1);
});
