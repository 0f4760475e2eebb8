import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub, type PubSubEventTarget } from 'graphql-yoga';
import type { ChangeEvents, LiveStream, OrderEvent, PetEvent } from '../domain/events.js';
import { appError, type AppError } from '../errors.js';
import { log } from '../log.js';
import type { RedisClient } from '../redis/clients.js';
import type { RedisConnection } from '../redis/connection.js';

export interface ChangeEventBus extends ChangeEvents {
  /** Ends every open stream (shutdown), and stops listening to Redis. */
  close(): Promise<void>;
  readonly describe: string;
}

type Topics = Record<string, [PetEvent | OrderEvent]>;

/** Pub/sub's commands and message event, classic and sharded (a Cluster's shard channels). */
const CLASSIC_PUBSUB = { publish: 'publish', subscribe: 'subscribe', unsubscribe: 'unsubscribe', message: 'message' } as const;
const SHARD_PUBSUB = { publish: 'spublish', subscribe: 'ssubscribe', unsubscribe: 'sunsubscribe', message: 'smessage' } as const;

/**
 * Events cross instances through Redis pub/sub when there is a Redis (each instance publishes to it and
 * hears every instance, itself included), and stay in the process otherwise. Channels carry the Redis
 * prefix, so services sharing a Redis under different prefixes never hear each other. On a Cluster they
 * are shard channels (SPUBLISH/SSUBSCRIBE): a topic's events reach only the shard its tag hashes to,
 * where classic PUBLISH is copied to every node.
 */
export function createChangeEvents(
  redis: { connection: RedisConnection; prefix: string } | undefined, queueLimit: number,
): ChangeEventBus {
  let subscriber: RedisClient | undefined;
  let eventTarget: PubSubEventTarget<Topics> | undefined;
  // Each channel's subscription, settled once Redis confirmed it: what a stream's `ready` waits for.
  const subscribed = new Map<string, Promise<void>>();
  const sharded = redis?.connection.topology === 'cluster';
  if (redis) {
    const pubsubOf = sharded ? SHARD_PUBSUB : CLASSIC_PUBSUB;
    const client = redis.connection.client;
    const sub = subscriber = redis.connection.subscriber();
    sub.on('error', () => undefined);
    const warn = (error: Error) => log.warn({ err: error }, 'an event could not be published through Redis');
    const publisher = {
      publish: (channel: string, message: string) => client[pubsubOf.publish](channel, message).catch(warn),
    };
    const subscribing = {
      on: (event: string, listener: (...args: unknown[]) => void) => sub.on(event === 'message' ? pubsubOf.message : event, listener),
      subscribe: (channel: string) => {
        const confirmed = sub[pubsubOf.subscribe](channel).then(() => undefined, warn);
        subscribed.set(channel, confirmed);
        return confirmed;
      },
      unsubscribe: (channel: string) => {
        subscribed.delete(channel);
        return sub[pubsubOf.unsubscribe](channel).catch(warn);
      },
    };
    eventTarget = createRedisEventTarget({ publishClient: publisher as never, subscribeClient: subscribing as never });
  }
  const pubsub = createPubSub<Topics>(eventTarget ? { eventTarget } : {});
  const base = redis ? `${redis.prefix}:events:` : 'events:';
  // A shard channel is hashed like a key: each topic's tag picks its shard. Elsewhere the names stay as
  // they were, so instances of the previous release go on hearing this one's events during a deploy.
  const channelOf = sharded ? (topic: string) => `${base}{${topic}}` : (topic: string) => base + topic;
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
  function stream<T>(topic: string, signal?: AbortSignal): LiveStream<T> {
    const channel = channelOf(topic);
    const source = pubsub.subscribe(channel)[Symbol.asyncIterator]() as AsyncIterator<T>;
    const queue: (T | AppError)[] = [];
    let reader: ((read: IteratorResult<T | AppError>) => void) | undefined;
    let stopped = false;
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
      queue.length = 0;
      queue.push(appError('STREAM_OVERFLOW',
        `This subscription fell more than ${queueLimit} events behind: it ends here; subscribe again to go on`));
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
      ready: subscribed.get(channel) ?? Promise.resolve(),
      next() {
        if (queue.length > 0) return Promise.resolve({ done: false, value: queue.shift()! });
        if (stopped) return Promise.resolve(done);
        return new Promise((resolve) => { reader = resolve; });
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
    describe: redis ? 'Redis pub/sub (shared by every instance)' : 'in process',
    pet: (event) => pubsub.publish(channelOf('pet'), event),
    order: (event) => pubsub.publish(channelOf('order'), event),
    pets: (signal) => stream<PetEvent>('pet', signal),
    orders: (signal) => stream<OrderEvent>('order', signal),
    async close() {
      for (const end of [...open]) end();
      subscriber?.disconnect();
    },
  };
}
