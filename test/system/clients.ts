import { randomUUID } from 'node:crypto';
import { subscribe } from '../support/sse.js';
import { sleep } from '../support/time.js';

/** What became of one write, as its client saw it. */
export interface WriteRecord {
  readonly name: string;
  readonly idempotencyKey: string;
  /** The last answer's status; 0 when the last try got no answer. */
  readonly status: number;
  /** The id a 2xx gave. */
  readonly id?: number;
  readonly tries: number;
}

/** One answer the load saw: when, how long it took, what it was. */
export interface Sample {
  readonly at: number;
  readonly ms: number;
  readonly status: number;
  readonly kind: 'write' | 'read';
}

export interface ClientLog {
  readonly writes: WriteRecord[];
  readonly samples: Sample[];
}

const RETRIED = new Set([429, 502, 503, 504]);
/** A 409 is retried only when it says the first request with the key still runs (it comes with Retry-After). */
const stillRunning = (status: number, body: unknown) => status === 409 && (body as { code?: string } | undefined)?.code === 'IDEMPOTENCY_IN_PROGRESS';

/**
 * Sends `request` as the spec tells a client to: the same Idempotency-Key on every try, and another try
 * after 429, 502-504, a 409 IDEMPOTENCY_IN_PROGRESS or a broken connection, waiting Retry-After when the answer gives one, or else an
 * exponential backoff with jitter (100 ms doubling, at most 5 s), for up to `attempts` tries.
 */
async function withRetries(send: (tries: number) => Promise<Response>, samples: Sample[], kind: Sample['kind'], attempts = 8) {
  let last: { status: number; body?: unknown } = { status: 0 };
  let tries = 0;
  for (let backoff = 100; tries < attempts; backoff = Math.min(backoff * 2, 5_000)) {
    tries += 1;
    const started = performance.now();
    try {
      const response = await send(tries);
      const body = await response.json().catch(() => undefined);
      samples.push({ at: Date.now(), ms: performance.now() - started, status: response.status, kind });
      last = { status: response.status, body };
      if (!RETRIED.has(response.status) && !stillRunning(response.status, body)) break;
      const after = Number(response.headers.get('retry-after'));
      await sleep(Number.isFinite(after) && after > 0 ? after * 1_000 : backoff * (0.5 + Math.random()));
    } catch {
      samples.push({ at: Date.now(), ms: performance.now() - started, status: 0, kind });
      last = { status: 0 };
      await sleep(backoff * (0.5 + Math.random()));
    }
  }
  return { ...last, tries };
}

/**
 * A REST writer: creates pets, one after another, each with a name of its own, until `until`. `keyless`
 * breaks it on purpose (SYSTEM_BREAK=keyless): its writes go without an Idempotency-Key, so a retry after
 * a lost answer writes again, which the auditor must catch as a write stored twice.
 */
export async function restWriter(url: string, key: string, label: string, until: number, log: ClientLog, keyless = false): Promise<void> {
  for (let n = 0; Date.now() < until; n++) {
    const name = `${label}-${n}`;
    const idempotencyKey = randomUUID();
    // Each try's X-Request-Id names the write and the try: the instances' access logs tell what became of each.
    const answer = await withRetries((tries) => fetch(`${url}/v1/pets`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': `${name}.${tries}`,
        ...(keyless ? {} : { 'idempotency-key': idempotencyKey }),
      },
      body: JSON.stringify({ name, categoryId: 1 + (n % 5) }),
    }), log.samples, 'write');
    const id = answer.status >= 200 && answer.status < 300 ? (answer.body as { id?: number } | undefined)?.id : undefined;
    log.writes.push({ name, idempotencyKey, status: answer.status, id, tries: answer.tries });
  }
}

/** A GraphQL reader: the first page of pets, again and again, until `until`. */
export async function graphqlReader(url: string, key: string, until: number, log: ClientLog): Promise<void> {
  while (Date.now() < until) {
    await withRetries(() => fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ pets(limit: 20) { id name status } }' }),
    }), log.samples, 'read');
  }
}

/** One event as the feed gave it. */
export interface FeedEvent {
  readonly id: number;
  readonly type: string;
  readonly pet: { readonly id: number; readonly name: string } | null;
}

/**
 * A feed reader as the README tells one to read: `after` set to the last id it read, page after page,
 * polling once a second when it has caught up, until the writers are done (`done` resolves), then on to
 * the end of what is there. Every event it was given is in `events`, in the order given.
 */
export async function feedReader(url: string, key: string, done: Promise<unknown>, log: ClientLog, events: FeedEvent[]): Promise<void> {
  let finished = false;
  void done.finally(() => { finished = true; });
  // The run's database is new: the feed from its oldest event (no `after`) is the run's.
  let after: number | undefined;
  for (let caughtUp = false, last = false; !(caughtUp && last);) {
    // The writers were done before this page was asked for: once it is caught up, nothing more will come.
    last = finished;
    const answer = await withRetries(() => fetch(`${url}/v1/events?type=pet.created&limit=100${after === undefined ? '' : `&after=${after}`}`, {
      headers: { authorization: `Bearer ${key}` },
    }), log.samples, 'read');
    if (answer.status !== 200) throw new Error(`the feed answered ${answer.status} after its retries: ${JSON.stringify(answer.body)}`);
    const page = answer.body as FeedEvent[];
    events.push(...page);
    if (page.length > 0) after = page.at(-1)!.id;
    caughtUp = page.length < 100;
    if (caughtUp && !last) await sleep(1_000);
  }
}

const SUBSCRIPTION = 'subscription { petChanged { kind pet { id name } } }';

/**
 * A subscriber as a browser's EventSource is one: it subscribes to every pet's changes over SSE and,
 * when its stream breaks or is refused, subscribes again after a backoff with `Last-Event-ID` set to
 * the last id it was given. Once the writers are done it reads on until its stream has been quiet for
 * 2 s. `seen` gets the id of every event, in the order given, across its reconnections.
 */
export async function subscriber(url: string, key: string, done: Promise<unknown>, seen: number[]): Promise<{ reconnections: number }> {
  let finished = false;
  let finishedAt = 0;
  void done.finally(() => { finished = true; finishedAt = Date.now(); });
  let last: number | undefined;
  let reconnections = -1;
  for (let backoff = 100; ; backoff = Math.min(backoff * 2, 5_000)) {
    const headers: Record<string, string> = { authorization: `Bearer ${key}`, ...(last === undefined ? {} : { 'last-event-id': String(last) }) };
    const stream = await subscribe(url, SUBSCRIPTION, headers).catch(() => undefined);
    if (!stream?.opened) {
      // Refused or unreachable for 30 s after the load: what it missed, the audit says.
      if (finished && Date.now() - finishedAt > 30_000) return { reconnections };
      await sleep(backoff * (0.5 + Math.random()));
      continue;
    }
    reconnections += 1;
    backoff = 100;
    let taken = 0;
    for (;;) {
      const before = taken;
      const outcome = await Promise.race([stream.ended.then(() => 'ended' as const), sleep(2_000).then(() => 'quiet' as const)]);
      for (; taken < stream.ids.length; taken++) {
        last = Number(stream.ids[taken]);
        seen.push(last);
      }
      if (outcome === 'ended') break;
      if (finished && taken === before) {
        stream.close();
        return { reconnections };
      }
    }
  }
}
