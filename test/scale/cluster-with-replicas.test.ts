import { describe, expect, it } from 'vitest';
import { startPair } from '../support/server.js';
import { subscribe } from '../support/sse.js';
import { labPerFile } from './lab/per-file.js';
import { redisCluster } from './lab/redis-cluster.js';

const held = labPerFile(() => redisCluster({ masters: 3, replicasEach: 1 }));

const PET_EVENTS = 'subscription { petChanged { kind pet { id name } } }';

describe('live events on a Redis Cluster', () => {
  it('cross instances over sharded pub/sub: only the shard of the channel hears them, not every node', async () => {
    const pair = await startPair({ REDIS_CLUSTER_NODES: held.lab.settings });
    held.pairs.push(pair);
    const { a, b } = pair;
    const onB = await subscribe(b.url, PET_EVENTS, b.headers);
    held.streams.push(onB);
    expect(onB.status).toBe(200);

    const shardBefore = await held.lab.clusterCounter('cluster_stats_messages_publishshard_received');
    const broadcastBefore = await held.lab.clusterCounter('cluster_stats_messages_publish_received');
    for (const name of ['First', 'Second', 'Third']) {
      const pet = (await a.post('/v1/pets', { name, categoryId: 1 })).body;
      expect((await onB.next(2_000)).data.petChanged).toEqual({ kind: 'CREATED', pet: { id: pet.id, name } });
    }
    // SPUBLISH reaches the channel's master and its replica: 3 messages to that one replica.
    await expect.poll(() => held.lab.clusterCounter('cluster_stats_messages_publishshard_received'), { timeout: 5_000 }).toBeGreaterThanOrEqual(shardBefore + 3);
    expect(await held.lab.clusterCounter('cluster_stats_messages_publish_received')).toBe(broadcastBefore);
  });
});

describe('safe retries on a Redis Cluster with replicas', () => {
  it('a claim is acknowledged by its master\'s replica before the request runs, in the claim\'s round trip', async () => {
    const pair = await startPair({ REDIS_CLUSTER_NODES: held.lab.settings });
    held.pairs.push(pair);
    const { a, b } = pair;
    const { auth } = await a.newKey('enterprise', { perMinute: 1_000, perDay: 1_000 });
    await held.lab.resetStats();
    const headers = { ...auth, 'idempotency-key': 'one-pet-please' };
    const first = await a.post('/v1/pets', { name: 'Once', categoryId: 1 }, headers);
    expect(first.status).toBe(201);
    const stats = await held.lab.commandStats();
    // One WAIT for the one claim (the completion that follows is not waited for), and it was answered.
    expect(stats.wait).toBe(1);
    expect(await (await fetch(`${a.url}/metrics`)).text()).not.toMatch(/^animal_store_redis_fallbacks_total\{/m);
    const retry = await b.post('/v1/pets', { name: 'Once', categoryId: 1 }, headers);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.id).toBe(first.body.id);
  });
});
