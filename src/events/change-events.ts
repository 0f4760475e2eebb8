import { setMaxListeners } from 'node:events';
import { createPubSub } from 'graphql-yoga';
import type { ChangeEvent, ChangeEvents, LiveStream, OrderEvent, PetEvent, StreamOptions } from '../domain/events.js';
import { appError, isAppError, type AppError } from '../errors.js';
import { log } from '../log.js';
import type { RedisClient } from '../redis/clients.js';
import type { RedisConnection } from '../redis/connection.js';

export interface ChangeEventBus extends ChangeEvents {
  /** Whether this instance has an open stream: without one, there is nothing to read the outbox for at once. */
  listening(): boolean;
  /** How many streams are open on this instance (the metrics). */
  open(): number;
  /** Hand an event read from the outbox to this instance's open streams. */
  pet(event: PetEvent): void;
  order(event: OrderEvent): void;
  /** Hears every wake-up: a change committed here, or on another instance (through Redis). */
  onWake(listener: () => void): void;
  /** Ends every open stream (shutdown), and stops listening to Redis. */
  close(): Promise<void>;
  readonly describe: string;
}

type Topics = Record<string, [PetEvent | OrderEvent]>;

/** How long a change waits for others to share its wake-up: a burst of writes costs one, not one each. */
const WAKE_COALESCE_MS = 5;

/** Pub/sub's commands and message event, classic and sharded (a Cluster's shard channels). */
const CLASSIC_PUBSUB = { publish: 'publish', subscribe: 'subscribe', message: 'message' } as const;
const SHARD_PUBSUB = { publish: 'spublish', subscribe: 'ssubscribe', message: 'smessage' } as const;

/**
 * The events of this instance's streams, read from the outbox (by the outbox reader, which hands them
 * here) and kept in the process. Redis carries only wake-ups: a change committed on one instance makes
 * every instance read the outbox at once instead of at its next poll. A wake-up lost (Redis away, an
 * instance killed between its commit and its wake-up) delays events until the next poll, never loses
 * them. On a Cluster the wake-up channel is a shard channel (SPUBLISH/SSUBSCRIBE), heard by one shard
 * where a classic PUBLISH is copied to every node.
 */
export function createChangeEvents(
  redis: { connection: RedisConnection; prefix: string } | undefined, queueLimit: number, overflowed: () => void = () => undefined,
): ChangeEventBus {
  const wakers: (() => void)[] = [];
  const wake = () => { for (const listener of wakers) listener(); };
  // Changes that come together (a burst of writes) send one wake-up: at most one per WAKE_COALESCE_MS.
  let pending: NodeJS.Timeout | undefined;
  const soon = () => {
    pending = undefined;
    wake();
    hint();
  };
  let subscriber: RedisClient | undefined;
  let hint = (): void => undefined;
  if (redis) {
    const sharded = redis.connection.topology === 'cluster';
    const pubsubOf = sharded ? SHARD_PUBSUB : CLASSIC_PUBSUB;
    const channel = sharded ? `${redis.prefix}:events:{wake}` : `${redis.prefix}:events:wake`;
    const client = redis.connection.client;
    const warn = (error: Error) => log.warn({ err: error }, 'a wake-up could not be sent through Redis: other instances read the outbox at their next poll');
    hint = () => { void client[pubsubOf.publish](channel, '').catch(warn); };
    // A connection in subscriber mode can do nothing else: one of its own, which waits out outages
    // (its subscription is renewed on reconnect).
    const sub = subscriber = redis.connection.subscriber();
    sub.on('error', () => undefined);
    sub.on(pubsubOf.message, wake);
    void sub[pubsubOf.subscribe](channel).catch((error: Error) => log.warn({ err: error }, 'wake-ups from other instances cannot be heard: the outbox is read by polling'));
  }
  // Every open stream listens on its topic: a busy instance has hundreds (each key's are bounded by its
  // stream slots), where Node warns of a leak past 10 listeners per event.
  const target = new EventTarget();
  setMaxListeners(0, target);
  const pubsub = createPubSub<Topics>({ eventTarget: target });
  const open = new Set<() => void>();

  /**
   * A topic's events until the subscriber returns the stream, `signal` aborts, or the bus closes. It
   * listens from the moment it is made, while its subscription is being answered, not from the client's
   * first read: a client that has its answer hears every change committed after it (in process; through
   * Redis, once `ready`).
   *
   * Events wait in the stream's own queue, read off pubsub's at once, so that a client reading slower
   * than events come costs at most `queueLimit` of them: past that the queue is dropped and the stream
   * ends with a STREAM_OVERFLOW error as its last item (the client subscribes again), where pubsub's
   * queue would have grown without end.
   */
  function stream<T extends ChangeEvent>(topic: string, { signal }: StreamOptions = {}): LiveStream<T> {
    const source = pubsub.subscribe(topic)[Symbol.asyncIterator]() as AsyncIterator<T>;
    const queue: (T | AppError)[] = [];
    let reader: ((read: IteratorResult<T | AppError>) => void) | undefined;
    let stopped = false;
    // The last event handed to the client: where it resumes after an overflow.
    let lastId: number | undefined;
    const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
    const hand = (read: IteratorResult<T | AppError>) => {
      const waiting = reader;
      reader = undefined;
      waiting?.(read);
    };
    const stop = () => {
      if (stopped) return;
      stopped = true;
      open.delete(stop);
      signal?.removeEventListener('abort', stop);
      void source.return?.();
      hand(done);
    };
    const overflow = () => {
      overflowed();
      queue.length = 0;
      const resume = lastId === undefined ? 'subscribe again to go on' : `subscribe again with \`after: ${lastId}\` (or the Last-Event-ID header) to go on without missing any`;
      queue.push(appError('STREAM_OVERFLOW', `This subscription fell more than ${queueLimit} events behind: it ends here; ${resume}`));
      stop();
    };
    // pubsub's iterator adds its listener on its first read: that read is made now.
    void (async () => {
      for (let read = await source.next(); !read.done && !stopped; read = await source.next()) {
        if (reader) hand({ done: false, value: read.value });
        else if (queue.length < queueLimit) queue.push(read.value);
        else overflow();
      }
    })().catch((error: unknown) => {
      log.warn({ err: error }, 'a subscription stream failed');
      stop();
    });
    open.add(stop);
    signal?.addEventListener('abort', stop, { once: true });
    if (signal?.aborted) stop();
    return {
      // Every event read from the outbox from now on reaches it: nothing to wait for.
      ready: Promise.resolve(),
      next() {
        const read = queue.length > 0 ? Promise.resolve({ done: false, value: queue.shift()! })
          : stopped ? Promise.resolve(done) : new Promise<IteratorResult<T | AppError>>((resolve) => { reader = resolve; });
        return read.then((item) => {
          if (!item.done && !isAppError(item.value)) lastId = item.value.id;
          return item;
        });
      },
      return() {
        stop();
        queue.length = 0;
        return Promise.resolve(done);
      },
      [Symbol.asyncIterator]() { return this; },
    };
  }

  return {
    describe: redis ? 'the outbox, woken through Redis pub/sub (polled every second without it)' : 'the outbox, polled every second',
    pet: (event) => pubsub.publish('pet', event),
    order: (event) => pubsub.publish('order', event),
    changed() {
      pending ??= setTimeout(soon, WAKE_COALESCE_MS);
    },
    listening: () => open.size > 0,
    open: () => open.size,
    onWake(listener) { wakers.push(listener); },
    pets: (options) => stream<PetEvent>('pet', options),
    orders: (options) => stream<OrderEvent>('order', options),
    async close() {
      clearTimeout(pending);
      for (const end of [...open]) end();
      subscriber?.disconnect();
    },
  };
}
