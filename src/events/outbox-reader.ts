import type { Clock } from '../clock.js';
import { log } from '../log.js';

/** What the reader reads: the outbox's events after an id, oldest first. */
export interface OutboxSource<E extends { readonly id: number }> {
  read(after: number, limit: number): Promise<E[]>;
  last(): Promise<number>;
}

/** Events read per query; a full page is followed by the next at once. */
const PAGE = 500;

/**
 * Reads the outbox's new events in id order and hands each to `deliver` once. Ids are given out at
 * insert and become visible at commit, so a lower id can appear after a higher one (its transaction
 * committed later): the reader reads from the highest id below which every id was seen (`floor`), and
 * remembers the ids it has delivered above it. A missing id counts as settled once it has been missing
 * for `horizonMs` (its transaction rolled back, or its instance died: the id will never appear).
 */
export function createOutboxReader<E extends { readonly id: number }>(options: {
  readonly source: OutboxSource<E>;
  readonly deliver: (event: E) => void;
  readonly horizonMs: number;
  readonly clock: Clock;
}) {
  const { source, deliver, horizonMs, clock } = options;
  let floor: number | undefined;
  const delivered = new Set<number>();
  const missingSince = new Map<number, number>();
  let running: Promise<void> | undefined;
  let again = false;

  async function readOnce(): Promise<void> {
    floor ??= await source.last();
    for (;;) {
      const events = await source.read(floor, PAGE);
      let top = floor;
      for (const event of events) {
        top = Math.max(top, event.id);
        if (delivered.has(event.id)) continue;
        delivered.add(event.id);
        missingSince.delete(event.id);
        deliver(event);
      }
      const now = clock.now();
      for (let id = floor + 1; id < top; id++) if (!delivered.has(id) && !missingSince.has(id)) missingSince.set(id, now);
      // The floor rises over every id delivered or given up on.
      while (delivered.has(floor + 1) || (missingSince.has(floor + 1) && now - missingSince.get(floor + 1)! >= horizonMs)) {
        floor += 1;
        delivered.delete(floor);
        missingSince.delete(floor);
      }
      if (events.length < PAGE) return;
    }
  }

  return {
    /** Reads now (one read at a time: a call during a read makes one more after it). */
    poll(): Promise<void> {
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        try {
          do {
            again = false;
            await readOnce();
          } while (again);
        } catch (error) {
          log.warn({ err: error }, 'the outbox could not be read; trying again shortly');
        } finally {
          running = undefined;
        }
      })();
      return running;
    },
    /** The highest id up to which every event has been handed on (or given up on). */
    get position(): number | undefined { return floor; },
    /** Ids above the floor that are still awaited. */
    get missing(): number { return missingSince.size; },
  };
}
