import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * Runs `example` only when `moduleUrl` is the script node was started with, so the tests can import the
 * example modules without them reading the environment or calling process.exit. Under vitest,
 * process.argv[1] is vitest's own entry point, never an example.
 */
export function runDirectly(moduleUrl: string, example: (baseUrl: string, apiKey: string) => Promise<unknown>): void {
  if (!isMainScript(moduleUrl)) return;

  const apiKey = process.env.API_KEY;
  if (!apiKey) {
    console.error('API_KEY is not set. Create one with `npm run --silent keys -- create --plan free` and run again with API_KEY=<key>.');
    process.exit(2);
  }
  const baseUrl = (process.env.API_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
  example(baseUrl, apiKey).then(
    (summary) => console.log(JSON.stringify(summary, null, 2)),
    (error: unknown) => {
      console.error(describe(error));
      process.exitCode = 1;
    },
  );
}

function isMainScript(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    // Node loads the main module by its real path, so a symlinked checkout still matches.
    return pathToFileURL(realpathSync(script)).href === moduleUrl;
  } catch {
    return false;
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // A GraphQL error's code (UNAUTHENTICATED, RATE_LIMITED...) says more than its message, and fetch's
  // own "fetch failed" hides the reason (ECONNREFUSED...) in its cause.
  const code = 'code' in error && error.code ? `${String(error.code)}: ` : '';
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${code}${error.message}${cause}`;
}
