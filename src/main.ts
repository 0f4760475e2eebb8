import { ConfigError, loadConfig } from './config.js';
import { log } from './log.js';
import { serve } from './server.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const running = await serve(config);
  log.info({ url: running.url, ...running.app.backends }, `Animal Store API listening on ${running.url}`);
  log.info(`REST ${running.url}/v1/pets · OpenAPI ${running.url}/v1/openapi.json · GraphQL and GraphiQL ${running.url}/graphql`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    running.close().then(
      () => process.exit(0),
      (error: unknown) => { log.error({ err: error }, 'shutdown failed'); process.exit(1); },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  // A bad setting is the operator's to fix: say which, without a stack trace.
  if (error instanceof ConfigError) console.error(error.message);
  else log.fatal({ err: error }, 'startup failed');
  process.exit(1);
});
