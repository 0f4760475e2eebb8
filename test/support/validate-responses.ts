/**
 * The contract projects' setup file: every answer a test gets from a test server's `/v1` through fetch (the
 * support's `call` and the server helpers use it too) is judged by that server's own OpenAPI document, as
 * served at /v1/openapi.json (see openapi-responses.ts for what is checked). An answer the document does not
 * allow makes its fetch throw, naming the operation, the status and AJV's errors, and fails the test that got
 * it in afterEach too, should the test have caught the throw.
 */
import { request } from 'node:http';
import type { OpenAPIV3 } from 'openapi-types';
import { afterAll, afterEach } from 'vitest';
import { isJson, responseChecker } from './openapi-responses.js';

type Checker = ReturnType<typeof responseChecker>;

const DOCUMENT_PATH = '/v1/openapi.json';
/** The platform's fetch, kept on the wrapper: a worker that runs another file wraps it afresh, with that file's failures. */
const ORIGINAL = Symbol.for('animal-store.unvalidated-fetch');
/** The servers tests start listen here (test/support/server.ts, launch.ts). */
const TEST_HOSTS = new Set(['127.0.0.1', 'localhost']);

/**
 * The document is public but counted, like any request without a key, against the client's address: it is
 * fetched from another loopback address, so that it costs the test's own address nothing.
 */
function fetchDocument(origin: string): Promise<OpenAPIV3.Document> {
  const url = new URL(DOCUMENT_PATH, origin);
  return new Promise((resolve, reject) => {
    const asked = request(url, { localAddress: url.hostname === '127.0.0.1' ? '127.0.0.2' : undefined, timeout: 5_000 }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => { text += chunk; }).on('end', () => {
        try {
          if (response.statusCode !== 200) throw new Error(`${DOCUMENT_PATH} answered ${response.statusCode}`);
          resolve(JSON.parse(text) as OpenAPIV3.Document);
        } catch (error) {
          reject(error as Error);
        }
      }).on('error', reject);
    });
    asked.on('timeout', () => asked.destroy(new Error(`${DOCUMENT_PATH} did not answer within 5 s`))).on('error', reject).end();
  });
}

/** One checker per server, from its document, fetched before the first request to it. */
const checkers = new Map<string, Promise<Checker>>();
function checkerFor(origin: string): Promise<Checker> {
  let checker = checkers.get(origin);
  if (!checker) {
    checker = fetchDocument(origin).then(responseChecker);
    checkers.set(origin, checker);
    // A server that cannot give its document now (stopped, cut off) is asked again next time.
    checker.catch(() => checkers.delete(origin));
  }
  return checker;
}

const failures: string[] = [];
afterEach(() => {
  const found = failures.splice(0);
  if (found.length > 0) throw new Error(`Answers that do not match the served OpenAPI document:\n${found.join('\n')}`);
});

/** How many answers were judged, and why others were not: printed with RESPONSE_CHECKS_SUMMARY=1. */
const tally = { judged: 0, undocumented: 0, noDocument: 0 };
afterAll(() => {
  if (process.env.RESPONSE_CHECKS_SUMMARY === '1') console.log(`response checks: ${JSON.stringify(tally)}`);
});

const current = globalThis.fetch as typeof fetch & { [ORIGINAL]?: typeof fetch };
const original = current[ORIGINAL] ?? current;
const validated = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  if (!TEST_HOSTS.has(url.hostname) || !url.pathname.startsWith('/v1/') || url.pathname === DOCUMENT_PATH) return original(input, init);
  const checker = await checkerFor(url.origin).catch(() => undefined);
  const response = await original(input, init);
  if (!checker) {
    tally.noDocument++;
    return response;
  }
  const mediaType = response.headers.get('content-type')?.split(';')[0]!.trim().toLowerCase() ?? '';
  // An event stream is never read to its end here: its media type and headers are judged, not its events.
  const text = method !== 'HEAD' && (isJson(mediaType) || !mediaType) ? await response.clone().text().catch(() => undefined) : undefined;
  const verdict = checker({ method, url: url.href, status: response.status, headers: response.headers, text });
  tally[verdict.operation ? 'judged' : 'undocumented']++;
  if (verdict.problems.length > 0) {
    const failure = `${method} ${url.pathname}${url.search} → ${verdict.operation}:\n  - ${verdict.problems.join('\n  - ')}`;
    failures.push(failure);
    throw new Error(`The answer does not match the served OpenAPI document: ${failure}`);
  }
  return response;
};
globalThis.fetch = Object.assign(validated, { [ORIGINAL]: original }) as typeof fetch;
