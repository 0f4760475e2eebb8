import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('defaults to the embedded store on port 8080', () => {
    expect(loadConfig({})).toEqual({
      port: 8080, host: undefined, database: { kind: 'sqlite', dir: './data', statementTimeoutSeconds: 5 }, redis: undefined,
      redisPrefix: 'animal-store', logLevel: 'info', keyCacheTtlSeconds: 30, trustProxyHops: 0, memoryTrimSeconds: 0, drainSeconds: 5, responseCacheBytes: 33_554_432,
      rateLimits: { anonymousPerMinute: 60, banThreshold: 20, banWindowSeconds: 60, banSeconds: 600, windows: { minute: 60, day: 86_400 } },
      corsOrigins: ['*'], logFormat: 'auto', accessLogSample: 1, metricsToken: undefined, admin: undefined, subscriptionsPerKey: 5, streamQueueEvents: 1_000, eventRetentionHours: 72,
      webhooks: { allowHttp: false, allowPrivate: false, perKey: 10, timeoutMs: 10_000, concurrency: 256, perEndpoint: 2 },
      operationLimits: { maxRootFields: 20, maxDepth: 8, maxTokens: 2_000, maxDirectives: 10, maxNodes: 50_000, maxBatch: 10 },
      persistedDocuments: { mode: 'any', manifestFile: undefined, ttlSeconds: 86_400, perKey: 100 },
      http: { headersTimeoutSeconds: 10, requestTimeoutSeconds: 30, maxHeaderBytes: 16_384 },
    });
  });

  it('reads every setting', () => {
    expect(loadConfig({
      PORT: '3000', HOST: '127.0.0.1', DATABASE_URL: 'mysql://u:p@db:3306/store', REDIS_URL: 'redis://cache:6379', LOG_LEVEL: 'debug',
      REDIS_PREFIX: 'blue', KEY_CACHE_TTL_SECONDS: '5', TRUST_PROXY: '2', MEMORY_TRIM_SECONDS: '5', DRAIN_SECONDS: '30', RESPONSE_CACHE_MB: '8', ANONYMOUS_PER_MINUTE: '10', BAN_THRESHOLD: '5',
      BAN_WINDOW_SECONDS: '30', BAN_SECONDS: '120', CORS_ORIGINS: 'https://a.example, http://localhost:3000',
      LOG_FORMAT: 'json', ACCESS_LOG_SAMPLE: '0.25', METRICS_TOKEN: 'scrape-me', STATEMENT_TIMEOUT_SECONDS: '2', SUBSCRIPTIONS_PER_KEY: '3', STREAM_QUEUE_EVENTS: '50', EVENT_RETENTION_HOURS: '24',
      GRAPHQL_MAX_ROOT_FIELDS: '5', GRAPHQL_MAX_DEPTH: '4', GRAPHQL_MAX_TOKENS: '500', GRAPHQL_MAX_DIRECTIVES: '0',
      GRAPHQL_MAX_NODES: '80000', GRAPHQL_BATCH_LIMIT: '4', GRAPHQL_DOCUMENTS: 'registered', PERSISTED_DOCUMENTS_FILE: '/etc/store/documents.json',
      PERSISTED_QUERIES_TTL_SECONDS: '3600', PERSISTED_QUERIES_PER_KEY: '0',
      HEADERS_TIMEOUT_SECONDS: '3', REQUEST_TIMEOUT_SECONDS: '9', MAX_HEADER_BYTES: '8192',
      WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOKS_PER_KEY: '3', WEBHOOK_TIMEOUT_SECONDS: '4',
      WEBHOOK_CONCURRENCY: '200', WEBHOOK_ENDPOINT_CONCURRENCY: '1',
      ADMIN_PORT: '9090', ADMIN_HOST: '0.0.0.0', ADMIN_TOKENS: 'alice:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, bob:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
    })).toEqual({
      port: 3000, host: '127.0.0.1', database: { kind: 'mysql', url: 'mysql://u:p@db:3306/store', statementTimeoutSeconds: 2 },
      redis: { topology: { kind: 'single', url: 'redis://cache:6379' }, tls: false, callDeadlineMs: 500 }, redisPrefix: 'blue', logLevel: 'debug', keyCacheTtlSeconds: 5, trustProxyHops: 2, memoryTrimSeconds: 5, drainSeconds: 30, responseCacheBytes: 8_388_608,
      rateLimits: { anonymousPerMinute: 10, banThreshold: 5, banWindowSeconds: 30, banSeconds: 120, windows: { minute: 60, day: 86_400 } },
      corsOrigins: ['https://a.example', 'http://localhost:3000'], logFormat: 'json', accessLogSample: 0.25, metricsToken: 'scrape-me',
      admin: { port: 9090, host: '0.0.0.0', operators: new Map([['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'alice'], ['bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', 'bob']]) }, subscriptionsPerKey: 3, streamQueueEvents: 50, eventRetentionHours: 24,
      webhooks: { allowHttp: true, allowPrivate: true, perKey: 3, timeoutMs: 4_000, concurrency: 200, perEndpoint: 1 },
      operationLimits: { maxRootFields: 5, maxDepth: 4, maxTokens: 500, maxDirectives: 0, maxNodes: 80_000, maxBatch: 4 },
      persistedDocuments: { mode: 'registered', manifestFile: '/etc/store/documents.json', ttlSeconds: 3_600, perKey: 0 },
      http: { headersTimeoutSeconds: 3, requestTimeoutSeconds: 9, maxHeaderBytes: 8_192 },
    });
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxyHops).toBe(1);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxyHops).toBe(0);
    expect(loadConfig({ DATA_DIR: '/var/lib/pets' }).database).toEqual({ kind: 'sqlite', dir: '/var/lib/pets', statementTimeoutSeconds: 5 });
  });

  it.each([
    ['PORT', { PORT: 'http' }],
    ['PORT', { PORT: '65536' }],
    ['PORT', { PORT: '-1' }],
    ['SUBSCRIPTIONS_PER_KEY', { SUBSCRIPTIONS_PER_KEY: '0' }],
    ['STREAM_QUEUE_EVENTS', { STREAM_QUEUE_EVENTS: '0' }],
    ['STREAM_QUEUE_EVENTS', { STREAM_QUEUE_EVENTS: '100001' }],
    ['EVENT_RETENTION_HOURS', { EVENT_RETENTION_HOURS: '0' }],
    ['RESPONSE_CACHE_MB', { RESPONSE_CACHE_MB: '4097' }],
    ['RESPONSE_CACHE_MB', { RESPONSE_CACHE_MB: '-1' }],
    ['EVENT_RETENTION_HOURS', { EVENT_RETENTION_HOURS: '8761' }],
    ['WEBHOOK_ALLOW_HTTP', { WEBHOOK_ALLOW_HTTP: 'maybe' }],
    ['WEBHOOK_ALLOW_PRIVATE_TARGETS', { WEBHOOK_ALLOW_PRIVATE_TARGETS: '2' }],
    ['WEBHOOKS_PER_KEY', { WEBHOOKS_PER_KEY: '0' }],
    ['WEBHOOKS_PER_KEY', { WEBHOOKS_PER_KEY: '101' }],
    ['WEBHOOK_TIMEOUT_SECONDS', { WEBHOOK_TIMEOUT_SECONDS: '31' }],
    ['WEBHOOK_CONCURRENCY', { WEBHOOK_CONCURRENCY: '0' }],
    ['WEBHOOK_CONCURRENCY', { WEBHOOK_CONCURRENCY: '1001' }],
    ['WEBHOOK_ENDPOINT_CONCURRENCY', { WEBHOOK_ENDPOINT_CONCURRENCY: '0' }],
    ['WEBHOOK_ENDPOINT_CONCURRENCY', { WEBHOOK_ENDPOINT_CONCURRENCY: '17' }],
    ['DATABASE_URL', { DATABASE_URL: 'postgres://u@db/x' }],
    ['DATABASE_URL', { DATABASE_URL: 'not a url' }],
    ['REDIS_URL', { REDIS_URL: 'http://cache' }],
    ['REDIS_URL and REDIS_CLUSTER_NODES', { REDIS_URL: 'redis://cache', REDIS_CLUSTER_NODES: 'a:7000' }],
    ['REDIS_SENTINELS and REDIS_CLUSTER_NODES', { REDIS_SENTINELS: 'a:26379', REDIS_SENTINEL_MASTER: 'm', REDIS_CLUSTER_NODES: 'a:7000' }],
    ['REDIS_SENTINEL_MASTER', { REDIS_SENTINELS: 'a:26379' }],
    ['REDIS_SENTINEL_MASTER', { REDIS_URL: 'redis://cache', REDIS_SENTINEL_MASTER: 'm' }],
    ['REDIS_SENTINELS', { REDIS_SENTINELS: 'a:26379:1', REDIS_SENTINEL_MASTER: 'm' }],
    ['REDIS_CLUSTER_NODES', { REDIS_CLUSTER_NODES: 'a:70000' }],
    ['REDIS_CLUSTER_NODES', { REDIS_CLUSTER_NODES: ' , ' }],
    ['REDIS_PASSWORD', { REDIS_PASSWORD: 'secret' }],
    ['REDIS_USERNAME', { REDIS_USERNAME: 'app' }],
    ['REDIS_TLS', { REDIS_TLS: 'true' }],
    ['REDIS_TLS', { REDIS_URL: 'redis://cache', REDIS_TLS: 'enabled' }],
    ['REDIS_TLS', { REDIS_URL: 'rediss://cache', REDIS_TLS: 'false' }],
    ['REDIS_PASSWORD', { REDIS_URL: 'redis://:secret@cache', REDIS_PASSWORD: 'other' }],
    ['REDIS_CALL_DEADLINE_MS', { REDIS_URL: 'redis://cache', REDIS_CALL_DEADLINE_MS: '5' }],
    ['REDIS_PREFIX', { REDIS_PREFIX: '{as}' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }],
    ['KEY_CACHE_TTL_SECONDS', { KEY_CACHE_TTL_SECONDS: 'soon' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'maybe' }],
    ['TRUST_PROXY', { TRUST_PROXY: '11' }],
    ['MEMORY_TRIM_SECONDS', { MEMORY_TRIM_SECONDS: '-1' }],
    ['MEMORY_TRIM_SECONDS', { MEMORY_TRIM_SECONDS: 'soon' }],
    ['DRAIN_SECONDS', { DRAIN_SECONDS: '301' }],
    ['ADMIN_PORT needs ADMIN_TOKENS', { ADMIN_PORT: '9090' }],
    ['ADMIN_PORT', { ADMIN_PORT: '65536', ADMIN_TOKENS: 'alice:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }],
    ['ADMIN_TOKENS is set without ADMIN_PORT', { ADMIN_TOKENS: 'alice:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }],
    ['ADMIN_TOKENS: alice\'s token must be 32 to 256', { ADMIN_PORT: '9090', ADMIN_TOKENS: 'alice:short' }],
    ['ADMIN_TOKENS: alice\'s token must be 32 to 256', { ADMIN_PORT: '9090', ADMIN_TOKENS: 'alice:ask_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }],
    ['ADMIN_TOKENS must be `name:token` pairs', { ADMIN_PORT: '9090', ADMIN_TOKENS: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }],
    ['ADMIN_TOKENS: bob is there twice', { ADMIN_PORT: '9090', ADMIN_TOKENS: 'alice:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,bob:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }],
    ['REDIS_TLS', { REDIS_URL: 'rediss://cache', REDIS_TLS: 'OFF' }],
    ['ANONYMOUS_PER_MINUTE', { ANONYMOUS_PER_MINUTE: '0' }],
    ['BAN_THRESHOLD', { BAN_THRESHOLD: '-2' }],
    ['BAN_WINDOW_SECONDS', { BAN_WINDOW_SECONDS: '1.5' }],
    ['BAN_SECONDS', { BAN_SECONDS: 'forever' }],
    ['CORS_ORIGINS', { CORS_ORIGINS: 'https://a.example/path' }],
    ['CORS_ORIGINS', { CORS_ORIGINS: 'a.example' }],
    ['LOG_FORMAT', { LOG_FORMAT: 'xml' }],
    ['STATEMENT_TIMEOUT_SECONDS', { STATEMENT_TIMEOUT_SECONDS: '0' }],
    ['GRAPHQL_MAX_ROOT_FIELDS', { GRAPHQL_MAX_ROOT_FIELDS: '0' }],
    ['GRAPHQL_MAX_DEPTH', { GRAPHQL_MAX_DEPTH: '1' }],
    ['GRAPHQL_MAX_TOKENS', { GRAPHQL_MAX_TOKENS: '2k' }],
    ['GRAPHQL_MAX_DIRECTIVES', { GRAPHQL_MAX_DIRECTIVES: '-1' }],
    ['GRAPHQL_MAX_NODES', { GRAPHQL_MAX_NODES: '9999' }],
    ['GRAPHQL_MAX_NODES', { GRAPHQL_MAX_NODES: '10000001' }],
    ['HEADERS_TIMEOUT_SECONDS', { HEADERS_TIMEOUT_SECONDS: '0' }],
    ['REQUEST_TIMEOUT_SECONDS', { REQUEST_TIMEOUT_SECONDS: 'never' }],
    ['REQUEST_TIMEOUT_SECONDS', { HEADERS_TIMEOUT_SECONDS: '20', REQUEST_TIMEOUT_SECONDS: '10' }],
    ['MAX_HEADER_BYTES', { MAX_HEADER_BYTES: '100' }],
    ['GRAPHQL_BATCH_LIMIT', { GRAPHQL_BATCH_LIMIT: '0' }],
    ['GRAPHQL_DOCUMENTS', { GRAPHQL_DOCUMENTS: 'trusted' }],
    ['GRAPHQL_DOCUMENTS=registered needs PERSISTED_DOCUMENTS_FILE', { GRAPHQL_DOCUMENTS: 'registered' }],
    ['PERSISTED_QUERIES_TTL_SECONDS', { PERSISTED_QUERIES_TTL_SECONDS: '59' }],
    ['PERSISTED_QUERIES_PER_KEY', { PERSISTED_QUERIES_PER_KEY: '-1' }],
    ['DATABASE_REPLICA_URLS needs DATABASE_URL', { DATABASE_REPLICA_URLS: 'mysql://r1/store' }],
    ['DATABASE_REPLICA_URLS (the 2nd)', { DATABASE_URL: 'mysql://db/store', DATABASE_REPLICA_URLS: 'mysql://r1/store,postgres://r2/store' }],
    ['DATABASE_REPLICA_URLS', { DATABASE_URL: 'mysql://db/store', DATABASE_REPLICA_URLS: 'mysql://r1/store,,mysql://r2/store' }],
    ['DATABASE_REPLICA_URLS', { DATABASE_URL: 'mysql://db/store', DATABASE_REPLICA_URLS: Array.from({ length: 17 }, (_, i) => `mysql://r${i}/s`).join(',') }],
    ['REPLICA_WAIT_MS is set without DATABASE_REPLICA_URLS', { DATABASE_URL: 'mysql://db/store', REPLICA_WAIT_MS: '100' }],
    ['REPLICA_WAIT_MS', { DATABASE_URL: 'mysql://db/store', DATABASE_REPLICA_URLS: 'mysql://r1/store', REPLICA_WAIT_MS: '5001' }],
    ['REPLICA_MAX_LAG_SECONDS', { DATABASE_URL: 'mysql://db/store', DATABASE_REPLICA_URLS: 'mysql://r1/store', REPLICA_MAX_LAG_SECONDS: '0' }],
    ['READ_YOUR_WRITES_SECONDS (6) must be at least REPLICA_MAX_LAG_SECONDS + 2 (7)', {
      DATABASE_URL: 'mysql://db/store', DATABASE_REPLICA_URLS: 'mysql://r1/store', REPLICA_MAX_LAG_SECONDS: '5', READ_YOUR_WRITES_SECONDS: '6',
    }],
  ])('rejects a bad %s, naming it', (name, env) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });

  it('reads each Redis topology, with credentials and TLS for any of them', () => {
    expect(loadConfig({ REDIS_URL: 'rediss://cache:6380', REDIS_CALL_DEADLINE_MS: '250' }).redis).toEqual({
      topology: { kind: 'single', url: 'rediss://cache:6380' }, tls: false, callDeadlineMs: 250,
    });
    expect(loadConfig({
      REDIS_SENTINELS: 's1:26380, s2', REDIS_SENTINEL_MASTER: 'pets', REDIS_SENTINEL_PASSWORD: 'watch', REDIS_PASSWORD: 'data', REDIS_TLS: 'true',
    }).redis).toEqual({
      topology: { kind: 'sentinel', sentinels: [{ host: 's1', port: 26380 }, { host: 's2', port: 26379 }], master: 'pets', sentinelPassword: 'watch' },
      password: 'data', tls: true, callDeadlineMs: 500,
    });
    expect(loadConfig({ REDIS_CLUSTER_NODES: '[::1]:7001,redis-2', REDIS_USERNAME: 'app', REDIS_PASSWORD: 'p' }).redis).toEqual({
      topology: { kind: 'cluster', nodes: [{ host: '::1', port: 7001 }, { host: 'redis-2', port: 6379 }] },
      username: 'app', password: 'p', tls: false, callDeadlineMs: 500,
    });
  });

  it('reads read replicas and their settings', () => {
    expect(loadConfig({ DATABASE_URL: 'mysql://db/store', DATABASE_REPLICA_URLS: 'mysql://r1/store, mariadb://ro:pw@r2:3307/store' }).database).toEqual({
      kind: 'mysql', url: 'mysql://db/store', statementTimeoutSeconds: 5,
      replicas: { urls: ['mysql://r1/store', 'mariadb://ro:pw@r2:3307/store'], maxLagSeconds: 5, readYourWritesSeconds: 10, waitMs: 200 },
    });
    expect(loadConfig({
      DATABASE_URL: 'mysql://db/store', DATABASE_REPLICA_URLS: 'mysql://r1/store',
      REPLICA_MAX_LAG_SECONDS: '30', READ_YOUR_WRITES_SECONDS: '60', REPLICA_WAIT_MS: '0',
    }).database).toMatchObject({ replicas: { maxLagSeconds: 30, readYourWritesSeconds: 60, waitMs: 0 } });
  });

  it('names both settings when two Redis topologies are given, and never echoes a password', () => {
    try {
      loadConfig({ REDIS_URL: 'redis://:hunter2@cache', REDIS_SENTINELS: 'a', REDIS_SENTINEL_MASTER: 'm', REDIS_SENTINEL_PASSWORD: 'hunter3' });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).problems).toEqual(['REDIS_URL and REDIS_SENTINELS are set: choose one Redis topology (a single Redis, Sentinels or a Cluster)']);
      expect((error as Error).message).not.toMatch(/hunter/);
    }
  });

  it('reports every problem at once, and never echoes a URL that may hold a password', () => {
    try {
      loadConfig({ PORT: 'x', LOG_LEVEL: 'y', DATABASE_URL: 'mysql//root:secret@db' });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).problems).toHaveLength(3);
      expect((error as Error).message).not.toContain('secret');
    }
  });

  it.each([['1', 1], ['1.0', 1], ['0.5', 0.5], ['.05', 0.05], ['0.000001', 0.000001], ['', 1]])(
    'reads ACCESS_LOG_SAMPLE=%j as the share %d of successful requests logged', (raw, share) => {
      expect(loadConfig({ ACCESS_LOG_SAMPLE: raw }).accessLogSample).toBe(share);
    });

  it.each(['0', '0.0', '1.5', '2', '-0.1', '1e-3', '10%', 'half', ' 0.5', '0x1', '.', 'Infinity'])(
    'refuses ACCESS_LOG_SAMPLE=%j, saying what it takes', (raw) => {
      expect(() => loadConfig({ ACCESS_LOG_SAMPLE: raw })).toThrow(ConfigError);
      expect(() => loadConfig({ ACCESS_LOG_SAMPLE: raw })).toThrow(`ACCESS_LOG_SAMPLE must be a decimal fraction greater than 0 and at most 1 (0.1: one in ten), got "${raw}"`);
    });

  it('returns a frozen config', () => {
    expect(Object.isFrozen(loadConfig({}))).toBe(true);
  });
});

describe('boolean settings', () => {
  const ON = ['true', 'TRUE', 'True', '1', 'yes', 'YES', 'Yes', 'on', 'ON', 'On', ' true ', 'yes\n'];
  const OFF = ['false', 'FALSE', 'False', '0', 'no', 'NO', 'No', 'off', 'OFF', 'Off', ' off '];
  const BAD = ['maybe', 'y', 'n', 't', 'f', '2', '-1', 'enabled', 'truee', 'yes please', '"true"'];
  // Each boolean setting, and where it shows in the config (REDIS_TLS means something only with a Redis).
  const SETTINGS: [string, Record<string, string>, (config: ReturnType<typeof loadConfig>) => unknown][] = [
    ['WEBHOOK_ALLOW_HTTP', {}, (c) => c.webhooks.allowHttp],
    ['WEBHOOK_ALLOW_PRIVATE_TARGETS', {}, (c) => c.webhooks.allowPrivate],
    ['REDIS_TLS', { REDIS_URL: 'redis://cache' }, (c) => c.redis?.tls],
  ];
  const cases = (words: string[]) => SETTINGS.flatMap(([name, env, read]) => words.map((word) => [name, word, env, read] as const));

  it.each(cases(ON))('reads %s=%j as true', (name, word, env, read) => {
    expect(read(loadConfig({ ...env, [name]: word }))).toBe(true);
  });

  it.each(cases(OFF))('reads %s=%j as false', (name, word, env, read) => {
    expect(read(loadConfig({ ...env, [name]: word }))).toBe(false);
  });

  it.each(cases(['', '  ']))('reads %s=%j as unset: the default, false', (name, word, env, read) => {
    expect(read(loadConfig({ ...env, [name]: word }))).toBe(false);
  });

  it.each(cases(BAD))('refuses %s=%j, naming the setting and the spellings it takes', (name, word, env) => {
    let thrown: unknown;
    try { loadConfig({ ...env, [name]: word }); } catch (error) { thrown = error; }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).problems).toEqual([`${name} must be true or false (or 1/0, yes/no, on/off, in any case), got "${word}"`]);
  });

  const HOPS: [string, number][] = [...ON.map((word): [string, number] => [word, 1]), ...OFF.map((word): [string, number] => [word, 0]), ['', 0], ['2', 2], ['10', 10], [' 3 ', 3]];
  it.each(HOPS)(
    'reads TRUST_PROXY=%j as %i proxy hops',
    (word, hops) => {
      expect(loadConfig({ TRUST_PROXY: word }).trustProxyHops).toBe(hops);
    },
  );

  it.each(BAD.filter((word) => !/^\d+$/.test(word)))('refuses TRUST_PROXY=%j, naming the setting, the spellings and the hops it takes', (word) => {
    let thrown: unknown;
    try { loadConfig({ TRUST_PROXY: word }); } catch (error) { thrown = error; }
    expect((thrown as ConfigError).problems).toEqual([
      `TRUST_PROXY must be true or false (or 1/0, yes/no, on/off, in any case), or a number of proxy hops from 0 to 10, got "${word}"`,
    ]);
  });

  it('refuses REDIS_TLS off, in any spelling, beside a rediss:// URL', () => {
    for (const word of ['false', '0', 'no', 'Off']) {
      expect(() => loadConfig({ REDIS_URL: 'rediss://cache', REDIS_TLS: word })).toThrow('REDIS_URL is rediss:// (TLS) and REDIS_TLS is false');
    }
    expect(loadConfig({ REDIS_URL: 'rediss://cache', REDIS_TLS: 'yes' }).redis?.tls).toBe(true);
  });
});
