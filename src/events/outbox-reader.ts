import type { Clock } from '../clock.js';
import { log } from '../log.js';
import { oneAtATime } from '../one-at-a-time.js';

/** What the reader reads: the outbox's events after an id, oldest first. */
export interface OutboxSource<E extends { readonly id: number }> {
  read(after: number, limit: number): Promise<E[]>;
  last(): Promise<number>;
  /** The primary's position, asked after a read (the response cache's misses wait for it on a replica). */
  position?(): Promise<string | undefined>;
}

/** Events read per query; a full page is followed by the next at once. */
const PAGE = 500;

/**
 * Reads the outbox's new events and hands each to `deliver` once, in id order. Ids are given out at
 * insert and become visible at commit, so a lower id can appear after a higher one (its transaction
 * committed later): an event above an id not yet seen is held until that id appears, or until it has
 * been missing for `horizonMs` (its transaction rolled back, or its instance died: it will never appear).
 * So every id up to `position` is settled, and a client that resumes after the last id it heard misses
 * nothing.
 */
export function createOutboxReader<E extends { readonly id: number }>(options: {
  readonly source: OutboxSource<E>;
  readonly deliver: (event: E) => void;
  /** Hears every event as it is read, before the order is settled (a lower id may still come): the response cache. */
  readonly read?: (event: E) => void;
  readonly horizonMs: number;
  readonly clock: Clock;
}) {
  const { source, deliver, read: heard = () => undefined, horizonMs, clock } = options;
  let floor: number | undefined;
  /** The last read failed (the database is out of reach or too slow): the position may be behind. */
  let failing = false;
  /** When the last read that reached the newest event started: every event committed before then has been read. */
  let readAsOf: number | undefined;
  /** The primary's position once the last read was done: a replica that has it has every event read so far. */
  let readPosition: string | undefined;
  /** Read, above an id still missing. */
  const held = new Map<number, E>();
  const missingSince = new Map<number, number>();
  async function readOnce(): Promise<void> {
    const started = clock.now();
    floor ??= await source.last();
    // From the floor each time (a late lower id shows up there), page after page up to the newest.
    for (let from = floor; ;) {
      const events = await source.read(from, PAGE);
      let top = floor;
      for (const event of events) {
        top = Math.max(top, event.id);
        // An event heard since the position was asked: the position no longer covers what was heard.
        readPosition = undefined;
        heard(event);
        held.set(event.id, event);
        missingSince.delete(event.id);
      }
      const now = clock.now();
      for (let id = floor + 1; id < top; id++) if (!held.has(id) && !missingSince.has(id)) missingSince.set(id, now);
      // The floor rises over every id read (handing its event on) or given up on.
      for (;;) {
        const next = held.get(floor + 1);
        if (next) {
          held.delete(floor + 1);
          deliver(next);
        } else if (!(missingSince.has(floor + 1) && now - missingSince.get(floor + 1)! >= horizonMs)) {
          break;
        }
        floor += 1;
        missingSince.delete(floor);
      }
      if (events.length < PAGE) {
        failing = false;
        readAsOf = started;
        if (source.position) readPosition = await source.position();
        return;
      }
      from = Math.max(floor, events.at(-1)!.id);
    }
  }

  return {
    /** Reads now (one read at a time: a call during a read makes one more after it, and waits for it). */
    poll: oneAtATime(readOnce, (error) => {
      failing = true;
      log.warn({ err: error }, 'the outbox could not be read; trying again shortly');
    }),
    /** Whether the last read failed: what it waited for is not known to be settled. */
    get failing(): boolean { return failing; },
    /** The primary's position after the last read: a replica that has applied it has every event read (when the source tells it). */
    get readPosition(): string | undefined { return readPosition; },
    /** When the last complete read started (the clock's ms): nothing committed before it is unread. */
    get readAsOf(): number | undefined { return readAsOf; },
    /** The highest id up to which every event has been handed on (or given up on). */
    get position(): number | undefined { return floor; },
    /** Ids above the position that are still awaited. */
    get missing(): number { return missingSince.size; },
  };
}
