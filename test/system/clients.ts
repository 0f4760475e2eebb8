import { randomUUID } from 'node:crypto';
import { subscribe } from '../support/sse.js';
import type { UpdateRecord } from './audit.js';
import { sleep } from '../support/time.js';

/** What became of one write, as its client saw it. */
export interface WriteRecord {
  readonly name: string;
  readonly idempotencyKey: string;
  /** The last answer's status; 0 when the last try got no answer. */
  readonly status: number;
  /** The last answer's error code, when it had one (IDEMPOTENCY_KEY_APPLIED: stored, its answer lost). */
  readonly code?: string;
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
  /** The answer's error code, when it carried one (none: a load balancer's own page, or a success). */
  readonly code?: string;
  /** The instance that answered a failure, as the load balancer named it; none: the load balancer itself. */
  readonly instance?: string;
}

export interface ClientLog {
  readonly writes: WriteRecord[];
  readonly samples: Sample[];
}

const RETRIED = new Set([429, 502, 503, 504]);
/** Codes a GraphQL answer may carry in a 200 that a client tries again, as it would their statuses. */
const RETRIED_CODES = new Set(['RATE_LIMITED', 'UNAVAILABLE', 'IDEMPOTENCY_IN_PROGRESS']);
/** The code of an answer's error: a REST problem's, or a GraphQL answer's first error's. */
const codeOf = (body: unknown): string | undefined => {
  const answer = body as { code?: unknown; errors?: { extensions?: { code?: unknown } }[] } | undefined;
  const code = answer?.code ?? answer?.errors?.[0]?.extensions?.code;
  return typeof code === 'string' ? code : undefined;
};
/** A 409 is retried only when it says the first request with the key still runs (it comes with Retry-After). */
const retried = (status: number, body: unknown) => RETRIED.has(status) || (status < 500 && RETRIED_CODES.has(codeOf(body) ?? ''));

/**
 * How long a client keeps trying one request: past a lapsed Idempotency-Key claim (10 s) and a primary's
 * restart, as a patient client would; a request still failing after it is reported as it last failed.
 */
const PATIENCE_MS = 30_000;

/**
 * Sends `request` as the spec tells a client to: the same Idempotency-Key on every try, and another try
 * after 429, 502-504, a 409 IDEMPOTENCY_IN_PROGRESS or a broken connection, waiting Retry-After when the
 * answer gives one, or else an exponential backoff with jitter (100 ms doubling, at most 5 s), for as long
 * as its patience lasts.
 */
async function withRetries(send: (tries: number) => Promise<Response>, samples: Sample[], kind: Sample['kind']) {
  let last: { status: number; body?: unknown } = { status: 0 };
  let tries = 0;
  const giveUpAt = Date.now() + PATIENCE_MS;
  for (let backoff = 100; tries === 0 || Date.now() < giveUpAt; backoff = Math.min(backoff * 2, 5_000)) {
    tries += 1;
    const started = performance.now();
    try {
      const response = await send(tries);
      const body = await response.json().catch(() => undefined);
      const code = response.ok ? undefined : codeOf(body);
      const instance = response.ok ? null : response.headers.get('x-served-by');
      samples.push({
        at: Date.now(), ms: performance.now() - started, status: response.status, kind, ...(code ? { code } : {}), ...(instance ? { instance } : {}),
      });
      last = { status: response.status, body };
      if (!retried(response.status, body)) break;
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
 * A REST writer: creates pets, one after another (`everyMs` apart, or at once), each with a name of its own, until `until`. `key` is a key or an access token. `keyless`
 * breaks it on purpose (SYSTEM_BREAK=keyless): its writes go without an Idempotency-Key, so a retry after
 * a lost answer writes again, which the auditor must catch as a write stored twice.
 */
export async function restWriter(url: string, key: string, label: string, until: number, log: ClientLog, keyless = false, everyMs = 0): Promise<void> {
  for (let n = 0; Date.now() < until; n++) {
    if (everyMs > 0 && n > 0) await sleep(everyMs);
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
    log.writes.push({ name, idempotencyKey, status: answer.status, code: codeOf(answer.body), id, tries: answer.tries });
  }
}

const CREATE = 'mutation Create($input: NewPet!) { createPet(input: $input) { id name } }';

/**
 * A GraphQL writer: the same as the REST writer, through `createPet`, its Idempotency-Key an HTTP header.
 * A write counts as acknowledged when the answer has the pet and no error.
 */
export async function graphqlWriter(url: string, key: string, label: string, until: number, log: ClientLog): Promise<void> {
  for (let n = 0; Date.now() < until; n++) {
    const name = `${label}-${n}`;
    const idempotencyKey = randomUUID();
    const answer = await withRetries((tries) => fetch(`${url}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': `${name}.${tries}`, 'idempotency-key': idempotencyKey,
      },
      body: JSON.stringify({ query: CREATE, variables: { input: { name, categoryId: 1 + (n % 5) } } }),
    }), log.samples, 'write');
    const made = (answer.body as { data?: { createPet?: { id: number } } | null; errors?: unknown[] } | undefined);
    const id = answer.status === 200 && !made?.errors ? made?.data?.createPet?.id : undefined;
    // A GraphQL failure may come in a 200: its record says 200 only when the pet came with it.
    const status = answer.status === 200 && id === undefined ? 500 : answer.status;
    log.writes.push({ name, idempotencyKey, status, code: codeOf(answer.body), id, tries: answer.tries });
  }
}

/**
 * An updater: every `everyMs`, another category for one of the pets the writers were given, a PATCH
 * (safe to retry as it is). Each makes a `pet.updated` event, the low-volume stream the slow and the
 * failing webhook receivers take.
 */
export async function updater(url: string, key: string, until: number, log: ClientLog, updates: UpdateRecord[], everyMs = 200): Promise<void> {
  while (Date.now() < until) {
    await sleep(everyMs);
    const made = log.writes.filter((w) => w.id !== undefined);
    if (made.length === 0) continue;
    const { id } = made[Math.floor(Math.random() * made.length)]!;
    const answer = await withRetries(() => fetch(`${url}/v1/pets/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ categoryId: 1 + Math.floor(Math.random() * 5) }),
    }), log.samples, 'write');
    updates.push({ petId: id!, status: answer.status, tries: answer.tries });
  }
}

/** One request of a key on a small plan, as the client saw it: sent and answered when, and how. */
export interface LimitedCall {
  readonly key: string;
  readonly sentAt: number;
  readonly at: number;
  readonly status: number;
}

/**
 * A client that asks more than its key's plan allows: a request every `everyMs`, through REST or GraphQL,
 * waiting out a 429's `Retry-After` as a client should (so it is refused about once a window, never
 * banned). Several at once on one key race for each new window through every instance. The auditor
 * counts their successes in each of the plan's windows.
 */
export async function greedyClient(
  url: string, key: { name: string; secret: string }, surface: 'rest' | 'graphql', until: number, calls: LimitedCall[], everyMs = 100,
): Promise<void> {
  const request = surface === 'rest'
    ? () => fetch(`${url}/v1/pets?limit=5`, { headers: { authorization: `Bearer ${key.secret}` } })
    : () => fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ pets(limit: 5) { id } }' }),
    });
  while (Date.now() < until) {
    const sentAt = Date.now();
    const { status, wait } = await request().then(async (response) => {
      const body = await response.json().catch(() => undefined) as { errors?: unknown[] } | undefined;
      const after = Number(response.headers.get('retry-after'));
      // A GraphQL refusal in a 200 would be no success: only an answer with data and no error counts.
      return { status: response.status === 200 && body?.errors ? 500 : response.status, wait: Number.isFinite(after) ? after * 1_000 : 0 };
    }, () => ({ status: 0, wait: 0 }));
    calls.push({ key: key.name, sentAt, at: Date.now(), status });
    await sleep(Math.min(Math.max(wait, everyMs - (Date.now() - sentAt)), Math.max(0, until - Date.now())));
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
  readonly occurredAt: string;
  readonly pet: { readonly id: number; readonly name: string } | null;
}

/**
 * A feed reader as docs/events-and-webhooks.md tells one to read: `after` set to the last id it read, page after page,
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
    const answer = await withRetries(() => fetch(`${url}/v1/events?limit=100${after === undefined ? '' : `&after=${after}`}`, {
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

/** Milliseconds since the load was done, for a reader that reads on after it: -1 while it runs. */
export function sinceDone(done: Promise<unknown>): () => number {
  let at: number | undefined;
  void done.finally(() => { at = Date.now(); });
  return () => (at === undefined ? -1 : Date.now() - at);
}

/**
 * A subscriber as a browser's EventSource is one: it subscribes to every pet's changes over SSE and,
 * when its stream breaks or is refused, subscribes again after a backoff with `Last-Event-ID` set to
 * the last id it was given. Once the writers are done it reads on until its stream has been quiet for
 * 2 s. `seen` gets the id of every event, in the order given, across its reconnections, and `times` when
 * each came. `resume: false` breaks it on purpose (SYSTEM_BREAK=no-resume): it subscribes again without
 * `Last-Event-ID`, so what came in between is missed, which the auditor must catch.
 */
export async function subscriber(
  url: string, key: string, done: Promise<unknown>, seen: number[], times: number[], resume = true,
): Promise<{ reconnections: number }> {
  const since = sinceDone(done);
  let last: number | undefined;
  let reconnections = -1;
  for (let backoff = 100; ; backoff = Math.min(backoff * 2, 5_000)) {
    const headers: Record<string, string> = { authorization: `Bearer ${key}`, ...(last === undefined || !resume ? {} : { 'last-event-id': String(last) }) };
    const stream = await subscribe(url, SUBSCRIPTION, headers, undefined, { keepPayloads: false }).catch(() => undefined);
    if (!stream?.opened) {
      // Refused or unreachable for 30 s after the load: what it missed, the audit says.
      if (since() > 30_000) return { reconnections };
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
        times.push(stream.times[taken]!);
      }
      if (outcome === 'ended') break;
      if (since() >= 0 && taken === before) {
        stream.close();
        return { reconnections };
      }
    }
  }
}

/** A change of one pet's name to `<label>-v<version>`, as its client saw it: acknowledged when, if at all. */
export interface VersionWrite {
  readonly client: string;
  readonly petId: number;
  readonly version: number;
  readonly sentAt: number;
  /** When its 2xx arrived; none: never acknowledged (it may still have been applied). */
  readonly ackAt?: number;
}

/** One read of a versioned pet: which version it showed, and how the response cache answered it. */
export interface VersionRead {
  readonly client: string;
  /** Read by the key that writes the pet (read-your-writes), or by another key. */
  readonly own: boolean;
  readonly petId: number;
  readonly sentAt: number;
  readonly at: number;
  readonly version: number;
  readonly surface: 'rest' | 'graphql';
  /** `hit`, `miss`, `bypass`, `304` (the validator it sent still named the answer), or none (the cache off). */
  readonly cache?: string;
}

const versionOf = (name: unknown): number | undefined => {
  const found = typeof name === 'string' ? /-v(\d+)$/.exec(name) : null;
  return found ? Number(found[1]) : undefined;
};

/**
 * One read of a pet, by REST or by GraphQL GET, once (a failure is the other clients' to count): the
 * version its name shows, or, when `validators` holds the ETag of an earlier answer, a 304 standing for
 * that answer's version.
 */
async function readVersion(
  url: string, key: string, petId: number, surface: 'rest' | 'graphql', validators?: Map<string, { tag: string; version: number }>,
): Promise<Omit<VersionRead, 'client' | 'own'> | undefined> {
  const target = surface === 'rest'
    ? `${url}/v1/pets/${petId}`
    : `${url}/graphql?query=${encodeURIComponent(`{ nodes(ids: ["${Buffer.from(`Pet:${petId}`).toString('base64')}"]) { ... on Pet { name } } }`)}`;
  const held = validators?.get(target);
  const sentAt = Date.now();
  const response = await fetch(target, { headers: { authorization: `Bearer ${key}`, ...(held ? { 'if-none-match': held.tag } : {}) } }).catch(() => undefined);
  if (!response) return undefined;
  const cacheStatus = response.headers.get('cache-status');
  const cache = response.status === 304 ? '304' : cacheStatus ? (cacheStatus.split('; ')[1]!.replace('fwd=', '')) : undefined;
  if (response.status === 304 && held) return { petId, sentAt, at: Date.now(), version: held.version, surface, cache };
  if (response.status !== 200) return undefined;
  const body = await response.json().catch(() => undefined) as { name?: string; data?: { nodes?: { name?: string }[] } } | undefined;
  const version = versionOf(surface === 'rest' ? body?.name : body?.data?.nodes?.[0]?.name);
  if (version === undefined) return undefined;
  const tag = response.headers.get('etag');
  if (validators && tag) validators.set(target, { tag, version });
  return { petId, sentAt, at: Date.now(), version, surface, ...(cache ? { cache } : {}) };
}

/**
 * A client that renames a pet of its own, `<label>-v1`, `-v2`, …, each a PATCH tried until it is answered,
 * and after each reads it back three times, by REST and by GraphQL GET, through the load balancer (so
 * through any instance): what the auditor holds to read-your-writes. Its pet's id goes in `pets` for the
 * observers.
 */
export async function versionedClient(
  url: string, key: string, label: string, until: number, log: ClientLog, writes: VersionWrite[], reads: VersionRead[], pets: number[],
): Promise<void> {
  const created = await withRetries(() => fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ name: `${label}-v0`, categoryId: 1 }),
  }), log.samples, 'write');
  const petId = (created.body as { id?: number } | undefined)?.id;
  if (petId === undefined) throw new Error(`${label}: its pet could not be created (${created.status})`);
  pets.push(petId);
  for (let version = 1; Date.now() < until; version++) {
    const sentAt = Date.now();
    const answer = await withRetries(() => fetch(`${url}/v1/pets/${petId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `${label}-v${version}` }),
    }), log.samples, 'write');
    writes.push({ client: label, petId, version, sentAt, ...(answer.status >= 200 && answer.status < 300 ? { ackAt: Date.now() } : {}) });
    for (let i = 0; i < 3; i++) {
      const read = await readVersion(url, key, petId, i % 2 === 0 ? 'rest' : 'graphql');
      if (read) reads.push({ ...read, client: label, own: true });
    }
    await sleep(50);
  }
}

/**
 * Another key's reader of the versioned pets, polling as a frontend does: each answer's ETag sent back in
 * If-None-Match (a 304 stands for the version it named), through any instance. What the auditor holds to
 * the cache's bound.
 */
export async function versionObserver(url: string, key: string, until: number, pets: readonly number[], reads: VersionRead[]): Promise<void> {
  const validators = new Map<string, { tag: string; version: number }>();
  for (let n = 0; Date.now() < until; n++) {
    if (pets.length === 0) {
      await sleep(100);
      continue;
    }
    const petId = pets[n % pets.length]!;
    const read = await readVersion(url, key, petId, n % 3 === 0 ? 'graphql' : 'rest', validators);
    if (read) reads.push({ ...read, client: 'observer', own: false });
    await sleep(10);
  }
}
