import type { TestServer } from './server.js';

export interface Answer {
  readonly what: string;
  readonly started: number;
  readonly ms: number;
  readonly status: number;
  readonly code?: string;
  /** Answered from the instance's response cache (Cache-Status: hit). */
  readonly hit?: boolean;
}

export interface StreamRequest {
  readonly what: string;
  send(api: TestServer): Promise<{ status: number; body?: unknown; headers?: Headers }>;
}

/** The requests a stream sends in turn by default: each surface, reading and writing. */
const REQUESTS: readonly StreamRequest[] = [
  { what: 'GET /v1/pets', send: (api: TestServer) => api.get('/v1/pets?limit=5') },
  { what: 'POST /v1/pets', send: (api: TestServer) => api.post('/v1/pets', { name: 'Stream', categoryId: 1 }) },
  { what: 'POST /graphql', send: (api: TestServer) => api.gql('{ pets(limit: 5) { id } }') },
];

/**
 * Keeps `concurrency` clients sending requests one after another until stopped, and records each answer
 * with when it was asked and how long it took: what a fault does to traffic, not to one request.
 */
export function requestStream(api: TestServer, concurrency = 4, requests = REQUESTS) {
  const answers: Answer[] = [];
  let running = true;
  const client = async (offset: number) => {
    for (let i = offset; running; i++) {
      const { what, send } = requests[i % requests.length]!;
      const started = Date.now();
      const reply = await send(api).catch((error: Error) => ({ status: 0, body: { code: error.message } }));
      const body = reply.body as { code?: string; errors?: { extensions?: { code?: string } }[] } | undefined;
      answers.push({
        what, started, ms: Date.now() - started, status: reply.status,
        code: body?.code ?? body?.errors?.[0]?.extensions?.code,
        ...('headers' in reply && reply.headers?.get('cache-status') === 'animal-store; hit' ? { hit: true } : {}),
      });
    }
  };
  const clients = Array.from({ length: concurrency }, (_, i) => client(i));
  return {
    answers,
    /** Answers to requests asked at or after `from` (ms since the epoch). */
    since: (from: number) => answers.filter((a) => a.started >= from),
    async stop() {
      running = false;
      await Promise.all(clients);
    },
  };
}

/** Polls `check` until it holds, and says how long that took; fails after `ms`. */
export async function timeUntil(check: () => Promise<boolean> | boolean, ms: number, every = 25): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if (await check()) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, every));
  }
  throw new Error(`not within ${ms} ms`);
}
