import type { ChangeEvent, EventFeed, EventType } from '../domain/events.js';
import { appError } from '../errors.js';

/** The recorded events, as far as this instance's outbox reader has settled them. */
export interface EventHistory {
  /** Every id up to here is settled: its event is recorded, or it never will be. Undefined until the first read. */
  position(): number | undefined;
  /** Reads the outbox now, then the position: a change committed before the call is within it. */
  settled(): Promise<number>;
  /**
   * The events after `after` (from the oldest kept when not given) up to `upTo`, oldest first.
   * EVENTS_EXPIRED when some of them were pruned; BAD_REQUEST for an id the outbox never gave out.
   */
  read(query: { after?: number; upTo: number; limit: number; types?: readonly EventType[] }): Promise<ChangeEvent[]>;
}

/** A page of the outbox (the events after `after` up to `upTo`), and the lowest and highest ids it holds. */
export type OutboxPages = (query: { after: number; upTo: number; limit: number; types?: readonly EventType[] }) =>
  Promise<{ readonly events: ChangeEvent[]; readonly oldest?: number; readonly newest?: number }>;

export function createEventHistory(options: {
  readonly pages: OutboxPages;
  readonly reader: { poll(): Promise<void>; readonly position: number | undefined; readonly failing: boolean };
  readonly retentionHours: number;
}): EventHistory {
  const { pages, reader, retentionHours } = options;
  const position = () => reader.position;
  return {
    position,
    async settled() {
      await reader.poll();
      const at = position();
      // A read that failed (past the database deadline, or out of reach) leaves what was committed unknown.
      if (at === undefined || reader.failing) throw appError('UNAVAILABLE', 'Events cannot be read at the moment; try again shortly', { headers: { 'Retry-After': '1' } });
      return at;
    },
    async read({ after, upTo, limit, types }) {
      const { events, oldest, newest = 0 } = await pages({ after: after ?? 0, upTo, limit, types });
      if (after === undefined) return events;
      if (after > newest) throw appError('BAD_REQUEST', `No event has the id ${after}: the newest is ${newest === 0 ? 'none yet' : newest}`);
      // Ids are pruned lowest first: one missing between `after` and the oldest kept was pruned.
      if (oldest !== undefined && after + 1 < oldest) {
        throw appError('EVENTS_EXPIRED',
          `The events after ${after} are no longer kept (events are kept for ${retentionHours} hours; the oldest now is ${oldest}): `
          + 'read the records again, then follow the events from the newest');
      }
      return events;
    },
  };
}

/** The event feed: pages of settled events, so that a client that goes on after a page's last id misses none. */
export function eventFeed(history: EventHistory): EventFeed {
  return {
    async page({ after, limit, types }) {
      const upTo = await history.settled();
      return history.read({ after, upTo, limit, types });
    },
  };
}
