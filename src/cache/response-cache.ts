import { touches, type Read, type ReadKind, type Touch } from './reads.js';

/**
 * An answer as the surface gave it: what a hit sends again, byte for byte. Its body is bytes, outside V8's
 * heap: a full cache of strings filled the old space of a 128 MB heap and spent a third of the time in
 * major collections (list20 from a full cache fell from about 16,000 to 7,000 req/s); bytes are also
 * written to the socket as they are, where a string is encoded again for every hit.
 */
export interface CachedAnswer {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Uint8Array;
  readonly etag: string;
  /** The identity of the only caller it may go to (its resolvers asked who the caller was); none: any caller of its key's scopes. */
  readonly caller?: string;
}

interface Entry extends CachedAnswer {
  readonly key: string;
  readonly reads: readonly Read[];
  readonly bytes: number;
  /** When it goes whatever happens (performance.now()); none: only a change or the bound takes it. */
  readonly expiresAt?: number;
}

/** What an entry costs beside its key and body: the Map's slot, the object, its headers' array. */
const ENTRY_OVERHEAD = 400;
const READ_BYTES = 120;
/** Changes remembered for the answers being made: one made while more than this many came is not kept. */
const RECENT = 4_096;
/** One answer may take this share of the cache at most: a few big answers do not push out every small one. */
const LARGEST_SHARE = 8;
/** Events applied early remembered at most (each is forgotten when the reader hears it). */
const EARLY = 4_096;

const KINDS: readonly ReadKind[] = ['pet', 'order', 'ordersOfPet'];

export interface CacheEvents {
  evicted(count: number): void;
  invalidated(count: number): void;
}

/**
 * Answers by their key, least recently used first out once they pass `maxBytes` (keys, bodies, headers
 * and what each read, counted). Each entry knows the records it read; a change to one drops it. An
 * answer made while a change it read came in is not kept: its maker started before the change, and may
 * have read what was there before it.
 */
export function createResponseCache(maxBytes: number, events: CacheEvents = { evicted() {}, invalidated() {} }) {
  const entries = new Map<string, Entry>();
  let bytes = 0;
  /** Single records by id, and spans (pages), for each kind: what a change looks in. */
  const points = new Map(KINDS.map((kind) => [kind, new Map<number, Set<Entry>>()]));
  const spans = new Map(KINDS.map((kind) => [kind, new Map<Entry, Read[]>()]));
  /** Changes so far, and the latest of them (ring), for the answers being made. */
  let changes = 0;
  const recent: Touch[] = new Array<Touch>(RECENT);
  /** Ids of events applied before the outbox reader heard of them (this instance's own writes). */
  const early = new Set<number>();

  function remove(entry: Entry): void {
    entries.delete(entry.key);
    bytes -= entry.bytes;
    for (const read of entry.reads) {
      if (read.from === read.to) {
        const set = points.get(read.kind)!.get(read.from);
        set?.delete(entry);
        if (set?.size === 0) points.get(read.kind)!.delete(read.from);
      } else {
        spans.get(read.kind)!.delete(entry);
      }
    }
  }

  function index(entry: Entry): void {
    for (const read of entry.reads) {
      if (read.from === read.to) {
        const byId = points.get(read.kind)!;
        let set = byId.get(read.from);
        if (!set) byId.set(read.from, set = new Set());
        set.add(entry);
      } else {
        const bySpan = spans.get(read.kind)!;
        const list = bySpan.get(entry);
        if (list) list.push(read);
        else bySpan.set(entry, [read]);
      }
    }
  }

  return {
    /** The entry for the key, now the most recently used. */
    get(key: string): CachedAnswer | undefined {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt !== undefined && entry.expiresAt <= performance.now()) {
        remove(entry);
        return undefined;
      }
      entries.delete(key);
      entries.set(key, entry);
      return entry;
    },

    /** Where an answer's making starts: `store` compares it with the changes that came meanwhile. */
    mark(): number {
      return changes;
    },

    /**
     * Keeps the answer unless a change it read came since `mark`, or it is too big; says whether it kept it.
     * `expiresAt` (performance.now()): it goes then, whatever happens.
     */
    store(key: string, answer: CachedAnswer, reads: readonly Read[], mark: number, expiresAt?: number): boolean {
      if (changes - mark > RECENT) return false;
      for (let at = mark; at < changes; at++) {
        const touch = recent[at % RECENT]!;
        if (reads.some((read) => touches(read, touch))) return false;
      }
      const size = ENTRY_OVERHEAD + key.length * 2 + answer.body.byteLength
        + answer.headers.reduce((sum, [name, value]) => sum + name.length + value.length + 32, 0) + reads.length * READ_BYTES;
      if (size > maxBytes / LARGEST_SHARE) return false;
      const before = entries.get(key);
      if (before) remove(before);
      const entry: Entry = { ...answer, key, reads, bytes: size, ...(expiresAt === undefined ? {} : { expiresAt }) };
      entries.set(key, entry);
      bytes += size;
      index(entry);
      let evicted = 0;
      for (const oldest of entries.values()) {
        if (bytes <= maxBytes) break;
        remove(oldest);
        evicted++;
      }
      if (evicted > 0) events.evicted(evicted);
      return true;
    },

    /** A change committed: every answer that read the record goes. */
    changed(touch: Touch): void {
      recent[changes % RECENT] = touch;
      changes++;
      const dropped = new Set(points.get(touch.kind)!.get(touch.id));
      for (const [entry, reads] of spans.get(touch.kind)!) if (reads.some((read) => touches(read, touch))) dropped.add(entry);
      for (const entry of dropped) remove(entry);
      if (dropped.size > 0) events.invalidated(dropped.size);
    },

    /**
     * A write of this instance committed: what its events (at `ids`) changed goes now, before the outbox
     * reader hears of them, and not again when it does (what was kept meanwhile was made after the write).
     */
    appliedEarly(ids: readonly number[], touches: readonly Touch[]): void {
      for (const touch of touches) this.changed(touch);
      for (const id of ids) early.add(id);
      if (early.size > EARLY) early.delete(early.values().next().value!);
    },

    /** The outbox reader heard of an event: what it changed goes, unless it went early. */
    heard(id: number, touches: readonly Touch[]): void {
      if (early.delete(id)) return;
      for (const touch of touches) this.changed(touch);
    },

    /** Everything goes (the instance can no longer tell which answers a change reached). */
    clear(): void {
      const count = entries.size;
      for (const entry of [...entries.values()]) remove(entry);
      if (count > 0) events.invalidated(count);
    },

    get size(): number { return entries.size; },
    get bytes(): number { return bytes; },
  };
}

export type ResponseCache = ReturnType<typeof createResponseCache>;
