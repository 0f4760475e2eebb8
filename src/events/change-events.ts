import { Redis } from 'ioredis';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub, Repeater, type PubSubEventTarget } from 'graphql-yoga';
import type { ChangeEvents, OrderEvent, PetEvent } from '../domain/events.js';
import { log } from '../log.js';

export interface ChangeEventBus extends ChangeEvents {
  /** Ends every open stream (shutdown), and stops listening to Redis. */
  close(): Promise<void>;
  readonly describe: string;
}

type Topics = Record<string, [PetEvent | OrderEvent]>;

/**
 * Events cross instances through Redis pub/sub when there is a Redis (each instance publishes to it and
 * hears every instance, itself included), and stay in the process otherwise. Channels carry the Redis
 * prefix, so services sharing a Redis under different prefixes never hear each other.
 */
export function createChangeEvents(redis: { url: string; publisher: Redis; prefix: string } | undefined): ChangeEventBus {
  let subscriber: Redis | undefined;
  let eventTarget: PubSubEventTarget<Topics> | undefined;
  if (redis) {
    // A connection in subscriber mode can do nothing else: one of its own, which waits out outages
    // (its subscriptions are renewed on reconnect) instead of failing fast like the limits' connection.
    subscriber = new Redis(redis.url, { maxRetriesPerRequest: null, retryStrategy: (attempt) => Math.min(attempt * 250, 2_000) });
    subscriber.on('error', () => undefined);
    const warn = (error: Error) => log.warn({ err: error }, 'an event could not be published through Redis');
    const publisher = { publish: (channel: string, message: string) => redis.publisher.publish(channel, message).catch(warn) };
    const subscribing = {
      on: subscriber.on.bind(subscriber),
      subscribe: (channel: string) => subscriber!.subscribe(channel).catch(warn),
      unsubscribe: (channel: string) => subscriber!.unsubscribe(channel).catch(warn),
    };
    eventTarget = createRedisEventTarget({ publishClient: publisher as never, subscribeClient: subscribing as never });
  }
  const pubsub = createPubSub<Topics>(eventTarget ? { eventTarget } : {});
  const prefix = redis ? `${redis.prefix}:events:` : 'events:';
  const open = new Set<() => void>();

  /** A topic's events until the subscriber returns the stream, `signal` aborts, or the bus closes. */
  function stream<T>(topic: string, signal?: AbortSignal): AsyncIterableIterator<T> {
    return new Repeater<T>(async (push, stop) => {
      const source = pubsub.subscribe(prefix + topic)[Symbol.asyncIterator]();
      const end = () => stop();
      open.add(end);
      signal?.addEventListener('abort', end, { once: true });
      if (signal?.aborted) end();
      void stop.then(() => source.return?.());
      try {
        for (let next = await Promise.race([source.next(), stop]); next && !next.done; next = await Promise.race([source.next(), stop])) {
          await push(next.value as T);
        }
      } finally {
        open.delete(end);
        stop();
      }
    });
  }

  return {
    describe: redis ? 'Redis pub/sub (shared by every instance)' : 'in process',
    pet: (event) => pubsub.publish(prefix + 'pet', event),
    order: (event) => pubsub.publish(prefix + 'order', event),
    pets: (signal) => stream<PetEvent>('pet', signal),
    orders: (signal) => stream<OrderEvent>('order', signal),
    async close() {
      for (const end of [...open]) end();
      subscriber?.disconnect();
    },
  };
}
