import type { RedisClient } from '../redis/clients.js';
import type { Deadline } from '../redis/deadline.js';

/** How long a stream's slot lasts without renewal: an instance that dies frees its slots this fast. */
export const LEASE_MS = 60_000;

/**
 * Open streams per key, counted across instances: a Redis sorted set per key, each member a stream and
 * its score when its lease ends. Taking a slot drops expired leases, counts, and adds, in one script.
 * Without Redis, or while it is away, each instance counts its own.
 */
export interface StreamSlots {
  take(keyId: number, streamId: string): Promise<boolean>;
  /** Renews a slot's lease (every open stream does, a few times per lease). */
  keep(keyId: number, streamId: string): void;
  give(keyId: number, streamId: string): void;
}

const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

export function createStreamSlots(limit: number, redis?: { client: RedisClient; prefix: string; bound?: Deadline }): StreamSlots {
  const local = new Map<number, Set<string>>();
  const inProcess: StreamSlots = {
    async take(keyId, streamId) {
      const open = local.get(keyId) ?? new Set<string>();
      if (open.size >= limit) return false;
      local.set(keyId, open.add(streamId));
      return true;
    },
    keep() {},
    give(keyId, streamId) {
      const open = local.get(keyId);
      open?.delete(streamId);
      if (open?.size === 0) local.delete(keyId);
    },
  };
  if (!redis) return inProcess;

  const { client, prefix, bound = (call) => call } = redis;
  const key = (keyId: number) => `${prefix}:streams:${keyId}`;
  const ignore = () => undefined;
  // Where each stream's slot was taken: given back there.
  const inRedis = new Set<string>();
  return {
    async take(keyId, streamId) {
      if (client.status === 'ready') {
        try {
          const taken = await bound(client.eval(TAKE, 1, key(keyId), Date.now(), LEASE_MS, limit, streamId));
          if (taken === 1) inRedis.add(streamId);
          return taken === 1;
        } catch { /* Redis went away, or past the deadline: counted here, as the limits are */ }
      }
      return inProcess.take(keyId, streamId);
    },
    keep(keyId, streamId) {
      if (inRedis.has(streamId)) client.zadd(key(keyId), 'XX', Date.now() + LEASE_MS, streamId).catch(ignore);
    },
    give(keyId, streamId) {
      if (inRedis.delete(streamId)) client.zrem(key(keyId), streamId).catch(ignore);
      else inProcess.give(keyId, streamId);
    },
  };
}
