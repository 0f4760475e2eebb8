import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { describeTopology } from '../../src/redis/clients.js';

const described = (env: Record<string, string>) => describeTopology(loadConfig(env).redis!);

describe('describeTopology', () => {
  it('names where each topology is reached, for the startup log, never with a password', () => {
    expect(described({ REDIS_URL: 'redis://:hunter2@cache.internal:6380/0' })).toBe('Redis at cache.internal:6380');
    expect(described({ REDIS_URL: 'rediss://cache.internal' })).toBe('Redis at cache.internal:6379');
    expect(described({ REDIS_SENTINELS: 's1:26379,s2:26380', REDIS_SENTINEL_MASTER: 'pets', REDIS_PASSWORD: 'hunter2' }))
      .toBe('Redis master "pets" through Sentinels s1:26379, s2:26380');
    expect(described({ REDIS_CLUSTER_NODES: 'n1:7001,[::1]:7002', REDIS_PASSWORD: 'hunter2' })).toBe('Redis Cluster through n1:7001, [::1]:7002');
  });
});
