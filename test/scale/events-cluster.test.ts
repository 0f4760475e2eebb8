import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPair } from '../support/server.js';
import { subscribe, type EventStream } from '../support/sse.js';
import { redisCluster, type RedisClusterLab } from './lab/redis-cluster.js';

let lab: RedisClusterLab;
const pairs: Awaited<ReturnType<typeof startPair>>[] = [];
const streams: EventStream[] = [];
beforeAll(async () => { lab = await redisCluster({ masters: 3, replicasEach: 1 }); }, 60_000);
afterAll(async () => {
  for (const stream of streams) stream.close();
  for (const pair of pairs) await pair.stop();
  await lab?.stop();
});

const PET_EVENTS = 'subscription { petChanged { kind pet { id name } } }';

describe('live events on a Redis Cluster', () => {
  it('cross instances over sharded pub/sub: only the shard of the channel hears them, not every node', async () => {
    const pair = await startPair({ REDIS_CLUSTER_NODES: lab.settings });
    pairs.push(pair);
    const { a, b } = pair;
    const onB = await subscribe(b.url, PET_EVENTS, b.headers);
    streams.push(onB);
    expect(onB.status).toBe(200);

    const shardBefore = await lab.clusterCounter('cluster_stats_messages_publishshard_received');
    const broadcastBefore = await lab.clusterCounter('cluster_stats_messages_publish_received');
    for (const name of ['First', 'Second', 'Third']) {
      const pet = (await a.post('/v1/pets', { name, categoryId: 1 })).body;
      expect((await onB.next(2_000)).data.petChanged).toEqual({ kind: 'CREATED', pet: { id: pet.id, name } });
    }
    // SPUBLISH reaches the channel's master and its replica: 3 messages to that one replica.
    await expect.poll(() => lab.clusterCounter('cluster_stats_messages_publishshard_received'), { timeout: 5_000 }).toBeGreaterThanOrEqual(shardBefore + 3);
    expect(await lab.clusterCounter('cluster_stats_messages_publish_received')).toBe(broadcastBefore);
  });
});
