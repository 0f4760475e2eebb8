import type { Crash } from './instances.js';
import type { FeedEvent, LimitedCall, Sample, VersionRead, VersionWrite, WriteRecord } from './clients.js';
import type { FaultRecord } from './faults.js';
import type { Receiver } from './receivers.js';

export interface Violation {
  readonly check: string;
  readonly record: unknown;
}

/** A pet as the primary holds it. */
export interface StoredPet {
  readonly id: number;
  readonly name: string;
}

/**
 * The books, from the writers' records and the pets the primary holds under the run's names: a write
 * acknowledged with a 2xx is stored exactly once, under the id it was given; a write that got an error or
 * no answer is stored at most once (its retries carried the same Idempotency-Key).
 */
export function auditWrites(writes: readonly WriteRecord[], rows: readonly StoredPet[]): Violation[] {
  const stored = new Map<string, number[]>();
  for (const row of rows) stored.set(row.name, [...(stored.get(row.name) ?? []), Number(row.id)]);
  const violations: Violation[] = [];
  for (const write of writes) {
    const ids = stored.get(write.name) ?? [];
    const acknowledged = write.status >= 200 && write.status < 300;
    if (acknowledged && (ids.length !== 1 || ids[0] !== write.id)) violations.push({ check: 'an acknowledged write is stored exactly once', record: { ...write, stored: ids } });
    if (!acknowledged && ids.length > 1) violations.push({ check: 'an unacknowledged write is stored at most once', record: { ...write, stored: ids } });
    // Told its first try was applied though never answered: it is there, once.
    if (write.code === 'IDEMPOTENCY_KEY_APPLIED' && ids.length !== 1) violations.push({ check: 'a write said to be applied is stored exactly once', record: { ...write, stored: ids } });
  }
  return violations;
}

/**
 * The feed as a reader saw it: ids only ever going up, none twice, and exactly one `pet.created` for each
 * pet the primary holds under the run's names (acknowledged or not: a write whose answer was lost may
 * be stored), and none for a pet it does not hold.
 */
export function auditFeed(events: readonly FeedEvent[], rows: readonly StoredPet[], prefix: string): Violation[] {
  const violations: Violation[] = [];
  for (let i = 1; i < events.length; i++) {
    if (events[i]!.id <= events[i - 1]!.id) violations.push({ check: 'the feed goes up by id, each event once', record: { before: events[i - 1]!.id, then: events[i]!.id } });
  }
  const created = new Map<number, number>();
  for (const event of events) {
    if (event.type !== 'pet.created' || !event.pet?.name.startsWith(prefix)) continue;
    created.set(event.pet.id, (created.get(event.pet.id) ?? 0) + 1);
  }
  const stored = new Set(rows.map((row) => Number(row.id)));
  for (const id of stored) {
    const seen = created.get(id) ?? 0;
    if (seen !== 1) violations.push({ check: 'each stored pet has exactly one pet.created in the feed', record: { petId: id, events: seen } });
  }
  for (const id of created.keys()) {
    if (!stored.has(id)) violations.push({ check: 'the feed holds no pet.created for a pet that is not stored', record: { petId: id } });
  }
  return violations;
}

/**
 * The feed against the outbox itself (the primary's events table, every committed change's event): up to
 * the last id the reader was given, it holds every committed event and none other. An id in neither was
 * given out to a transaction that rolled back: counted, not a violation.
 */
export function auditFeedAgainstOutbox(events: readonly FeedEvent[], committed: readonly number[]): { violations: Violation[]; rolledBack: number } {
  const read = new Set(events.map((e) => e.id));
  const last = events.at(-1)?.id ?? 0;
  const stored = new Set(committed.filter((id) => id <= last));
  const violations: Violation[] = [];
  for (const id of stored) if (!read.has(id)) violations.push({ check: 'the feed holds every committed event', record: { missing: id } });
  for (const id of read) if (!stored.has(id)) violations.push({ check: 'the feed holds only committed events', record: { extra: id } });
  const first = events[0]?.id ?? 1;
  return { violations, rolledBack: Math.max(0, last - first + 1 - new Set([...read, ...stored]).size) };
}

/** One change the updater was told was made (a 2xx), and how many tries it sent. */
export interface UpdateRecord { readonly petId: number; readonly status: number; readonly tries: number }

/**
 * Each pet's `pet.updated` events: at least one per acknowledged update, and at most one per try sent (a
 * PATCH has no Idempotency-Key: a retry after a lost answer may apply it again, a change of its own).
 */
export function auditUpdates(updates: readonly UpdateRecord[], events: readonly FeedEvent[]): Violation[] {
  const heard = new Map<number, number>();
  for (const e of events) if (e.type === 'pet.updated' && e.pet) heard.set(e.pet.id, (heard.get(e.pet.id) ?? 0) + 1);
  const asked = new Map<number, { acknowledged: number; tries: number }>();
  for (const u of updates) {
    const counts = asked.get(u.petId) ?? { acknowledged: 0, tries: 0 };
    asked.set(u.petId, { acknowledged: counts.acknowledged + (u.status >= 200 && u.status < 300 ? 1 : 0), tries: counts.tries + u.tries });
  }
  const violations: Violation[] = [];
  for (const [petId, { acknowledged, tries }] of asked) {
    const events = heard.get(petId) ?? 0;
    if (events < acknowledged || events > tries) violations.push({ check: 'each acknowledged update has its pet.updated, and no try two', record: { petId, acknowledged, tries, events } });
  }
  return violations;
}

/**
 * Each subscriber, across its reconnections: ids never going back, and every event of the feed after the
 * first it was given, at least once.
 */
export function auditStreams(subscribers: readonly (readonly number[])[], feed: readonly FeedEvent[]): Violation[] {
  const violations: Violation[] = [];
  subscribers.forEach((seen, n) => {
    const first = seen[0];
    if (first === undefined) {
      violations.push({ check: 'every subscriber is given events', record: { subscriber: n } });
      return;
    }
    for (let i = 1; i < seen.length; i++) {
      if (!(seen[i]! >= seen[i - 1]!)) violations.push({ check: 'a subscriber\'s events come in id order', record: { subscriber: n, before: seen[i - 1], then: seen[i] } });
    }
    const given = new Set(seen);
    for (const event of feed) {
      if (event.id > first && !given.has(event.id)) violations.push({ check: 'a subscriber is given every event after it subscribed', record: { subscriber: n, missing: event.id } });
    }
  });
  return violations;
}

/** After a fault is over, the load balancer's checks and the clients' pools take this long to settle. */
export const SETTLE_MS = 5_000;

/** No fault excuses a 500: it means something unexpected, never an outage (those are 502-504). */
export function internalErrors(samples: readonly Sample[]): Violation[] {
  return samples.filter((s) => s.status === 500)
    .map((record) => ({ check: 'no 500 INTERNAL, in a fault or out of one', record: { ...record, at: new Date(record.at).toISOString() } }));
}

/** An instance that exited when the run had not stopped it: a crash, which no fault excuses. */
export function crashes(instances: readonly { readonly crashes: readonly Crash[] }[]): Violation[] {
  return instances.flatMap((one) => one.crashes).map((record) => ({ check: 'no instance exits unless it is stopped', record }));
}

/** A 5xx, or no answer, outside every fault's window (its start to its end and the settling after). */
export function failuresOutside(samples: readonly Sample[], faults: readonly FaultRecord[]): Violation[] {
  return samples
    .filter((s) => (s.status === 0 || s.status >= 500) && !faults.some((f) => s.at >= f.startedAt && s.at <= f.recoveredAt + SETTLE_MS))
    .map((record) => ({ check: 'no 5xx and no lost answer outside a fault', record: { ...record, at: new Date(record.at).toISOString() } }));
}

/**
 * A rolling restart costs clients nothing: each instance fails its readiness and goes on serving for its
 * drain window before it closes (docs/operations.md), so no 5xx and no lost answer from the restart's start
 * to the end of its settling, unless another fault was under way then.
 */
export function restartCosts(samples: readonly Sample[], faults: readonly FaultRecord[]): Violation[] {
  const during = (s: Sample, f: FaultRecord) => s.at >= f.startedAt && s.at <= f.recoveredAt + SETTLE_MS;
  const restarts = faults.filter((f) => f.name === 'rolling restart');
  const others = faults.filter((f) => f.name !== 'rolling restart');
  return samples
    .filter((s) => (s.status === 0 || s.status >= 500) && restarts.some((f) => during(s, f)) && !others.some((f) => during(s, f)))
    .map((record) => ({ check: 'a rolling restart costs no 5xx and no lost answer', record: { ...record, at: new Date(record.at).toISOString() } }));
}

/**
 * Each webhook receiver: every event of its types the feed holds, delivered at least once (counted by
 * `webhook-id`, each of which carries one event only), and no delivery whose signature did not verify.
 */
export function auditWebhooks(receivers: readonly Receiver[], feed: readonly FeedEvent[]): Violation[] {
  const violations: Violation[] = [];
  for (const receiver of receivers) {
    for (const forged of receiver.forged.slice(0, 20)) violations.push({ check: 'every webhook\'s signature verifies', record: { receiver: receiver.name, ...forged } });
    const carried = new Map<string, number>();
    for (const { webhookId, eventId } of receiver.receipts) {
      const before = carried.get(webhookId);
      if (before !== undefined && before !== eventId) violations.push({ check: 'a webhook-id carries one event', record: { receiver: receiver.name, webhookId, events: [before, eventId] } });
      carried.set(webhookId, eventId);
    }
    const got = new Set(carried.values());
    for (const event of feed) {
      if (receiver.types.includes(event.type) && !got.has(event.id)) violations.push({ check: 'a webhook endpoint gets every event it subscribed to', record: { receiver: receiver.name, missing: event.id, type: event.type } });
    }
  }
  return violations;
}

/** Faults during which an instance may count a key's requests in its own memory (Redis away from it). */
const redisAway = (fault: FaultRecord) => fault.name.startsWith('Redis');

/**
 * Each greedy key's successes in each minute window (fixed, aligned to the clock, as the service keeps
 * them), counting only the requests sent and answered within the window (one that spans its end may have
 * been counted in either). At most the plan's limit; while Redis was away from some instance (a Redis
 * fault's window and the settling after), each instance's in-process counter may allow the limit again:
 * at most `limit × (1 + instances)`, and each window that used that allowance is counted.
 */
export function auditLimits(
  calls: readonly LimitedCall[], perMinute: ReadonlyMap<string, number>, faults: readonly FaultRecord[], instances: number,
): { violations: Violation[]; allowanceWindows: number } {
  const counts = new Map<string, number>();
  for (const call of calls) {
    const window = Math.floor(call.sentAt / 60_000);
    if (call.status < 200 || call.status >= 300 || Math.floor(call.at / 60_000) !== window) continue;
    const id = `${call.key} ${window}`;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  const violations: Violation[] = [];
  let allowanceWindows = 0;
  for (const [id, successes] of counts) {
    const [key, window] = id.split(' ') as [string, string];
    const limit = perMinute.get(key)!;
    const start = Number(window) * 60_000;
    const away = faults.some((f) => redisAway(f) && f.startedAt < start + 60_000 && f.recoveredAt + SETTLE_MS > start);
    const allowed = away ? limit * (1 + instances) : limit;
    if (successes > allowed) {
      violations.push({ check: 'no key gets more than its plan allows in a window', record: { key, window: new Date(start).toISOString(), successes, limit, redisAway: away } });
    } else if (successes > limit) allowanceWindows += 1;
  }
  return { violations, allowanceWindows };
}

/**
 * How old an answer may be (docs/operations.md, Validators, 304s and the response cache): an instance serves
 * from its cache only while its last complete outbox read began within this; a change acknowledged more than
 * this before a read was sent had been read by then, and dropped every answer it reached.
 */
export const CACHE_BOUND_MS = 1_000;

/**
 * The response cache's promises, from the versioned clients' writes and everyone's reads of their pets: a
 * key never reads a version older than its own last acknowledged write (read-your-writes, through any
 * instance), and no read shows a version older than the last one acknowledged CACHE_BOUND_MS before it
 * was sent. A 304 stands for the version of the answer whose ETag it named.
 */
export function auditCachedReads(writes: readonly VersionWrite[], reads: readonly VersionRead[], boundMs = CACHE_BOUND_MS): Violation[] {
  const acknowledged = new Map<number, { version: number; ackAt: number; client: string }[]>();
  for (const w of writes) if (w.ackAt !== undefined) (acknowledged.get(w.petId) ?? acknowledged.set(w.petId, []).get(w.petId)!).push({ version: w.version, ackAt: w.ackAt, client: w.client });
  const latest = (petId: number, before: number, client?: string) => Math.max(0, ...(acknowledged.get(petId) ?? [])
    .filter((w) => w.ackAt <= before && (client === undefined || w.client === client)).map((w) => w.version));
  const violations: Violation[] = [];
  for (const read of reads) {
    const record = { ...read, sentAt: new Date(read.sentAt).toISOString(), at: new Date(read.at).toISOString() };
    if (read.own) {
      const own = latest(read.petId, read.sentAt, read.client);
      if (read.version < own) violations.push({ check: 'a key never reads older than its own write', record: { ...record, acknowledged: own } });
    }
    const due = latest(read.petId, read.sentAt - boundMs);
    if (read.version < due) violations.push({ check: `no answer older than the cache's bound (${boundMs} ms)`, record: { ...record, acknowledgedBefore: due } });
  }
  return violations;
}
