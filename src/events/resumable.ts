import {
  ORDER_EVENT_TYPES, PET_EVENT_TYPES, type ChangeEvent, type ChangeEvents, type EventType, type LiveStream, type StreamOptions,
} from '../domain/events.js';
import { appError, isAppError, type AppError } from '../errors.js';
import type { EventHistory } from './event-history.js';

/** Recorded events read per query while a stream catches up. */
const PAGE = 200;
/**
 * A resumed stream's first page. A client that resumes and goes away after a few events (a reconnecting
 * tab, a flaky network) then costs a few events' work, not a full page; pages grow as it reads on.
 */
const FIRST_PAGE = 10;

/**
 * Streams that start where their client says: after an event (`after`: the recorded events after it
 * first, oldest first, a page at a time as the client reads, then the live ones), or now (the changes
 * committed once it is answered). A stream listens for live events only once it has caught up with what
 * this instance has settled, so a long backlog never piles up in its queue; it listens, then reads what
 * was settled up to that moment: no event falls between the record and the live stream, and none comes
 * twice (live events are handed on in id order, each above the position it listened at).
 */
export function resumableEvents(live: ChangeEvents, history: EventHistory): ChangeEvents {
  return {
    changed: () => live.changed(),
    pets: (options = {}) => resumed(() => live.pets(options), history, PET_EVENT_TYPES, options),
    orders: (options = {}) => resumed(() => live.orders(options), history, ORDER_EVENT_TYPES, options),
  };
}

function resumed<T extends ChangeEvent>(
  listen: () => LiveStream<T>, history: EventHistory, types: readonly EventType[], { after, signal }: StreamOptions,
): LiveStream<T> {
  const backlog: (T | AppError)[] = [];
  // Every event of `types` up to `cursor` is in the backlog or was handed on.
  let cursor = 0;
  let stream: LiveStream<T> | undefined;
  // Where the live stream takes over: every id above it comes through it.
  let listenedAt = 0;
  let ended = false;
  let pageSize = FIRST_PAGE;
  const done: IteratorReturnResult<undefined> = { done: true, value: undefined };

  const readUpTo = async (upTo: number) => {
    const limit = pageSize;
    pageSize = Math.min(PAGE, pageSize * 4);
    const events = await history.read({ after: cursor, upTo, limit, types }) as T[];
    backlog.push(...events);
    cursor = events.length === limit ? events.at(-1)!.id : upTo;
  };
  /** Fills the backlog with the next recorded page, listening once the record is caught up with. */
  const catchUp = async () => {
    // Read on only once the client has taken what was read.
    if (backlog.length > 0) return;
    if (!stream) {
      const upTo = history.position();
      if (upTo === undefined) throw appError('UNAVAILABLE', 'Events cannot be read at the moment; subscribe again shortly', { headers: { 'Retry-After': '1' } });
      if (cursor < upTo) await readUpTo(upTo);
      if (backlog.length > 0 || cursor < upTo || ended) return;
      stream = listen();
      listenedAt = history.position() ?? cursor;
    }
    while (backlog.length === 0 && cursor < listenedAt) await readUpTo(listenedAt);
  };
  // Answered once the stream knows where it starts: `after` checked (pruned, or never given out) by a
  // first read, or, from now on, once every change committed before the subscription is settled.
  const ready = (async () => {
    if (after === undefined) {
      cursor = await history.settled();
    } else {
      cursor = after;
      await readUpTo(Math.max(after, history.position() ?? after));
    }
    await catchUp();
  })();
  const end = () => {
    ended = true;
    backlog.length = 0;
    void stream?.return?.();
  };
  signal?.addEventListener('abort', end, { once: true });

  const iterator: LiveStream<T> = {
    ready,
    async next() {
      await ready;
      while (!ended) {
        const item = backlog.shift();
        if (item) {
          // A failed read is the stream's last item, as an overflow is.
          if (isAppError(item)) ended = true;
          return { done: false, value: item };
        }
        if (stream && cursor >= listenedAt) {
          // Listened below `after` (another instance had settled further): what the client has is skipped.
          const read = await stream.next();
          if (read.done || isAppError(read.value) || read.value.id > cursor) return read;
          continue;
        }
        await catchUp().catch((error: unknown) => { backlog.push(isAppError(error) ? error : appError('UNAVAILABLE', 'Events could not be read: subscribe again with the last id you heard')); });
      }
      return done;
    },
    async return() {
      end();
      return done;
    },
    [Symbol.asyncIterator]() { return this; },
  };
  return iterator;
}
