/**
 * The only reader of process.env: every setting (declared in settings/declarations.ts) is checked here,
 * with the checks that span several, and all problems are reported at once.
 */
import { adminConfig } from './config/admin.js';
import { redisConfig } from './config/redis.js';
import { replicaConfig } from './config/replicas.js';
import { tokenConfig } from './config/tokens.js';
import { tracingConfig } from './config/tracing.js';
import type { Config, DatabaseConfig, HttpLimits } from './config/types.js';
import { settingsReader } from './settings/declarations.js';
import { origins, url } from './settings/read.js';

export type * from './config/types.js';
export type { HostPort } from './settings/read.js';

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n- ${problems.join('\n- ')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const get = settingsReader(env, problems);
  const statementTimeoutSeconds = get('STATEMENT_TIMEOUT_SECONDS');
  const replicas = replicaConfig(env, problems);
  const databaseUrl = get('DATABASE_URL');
  const database: DatabaseConfig = databaseUrl
    ? { kind: 'mysql', url: url(databaseUrl, 'DATABASE_URL', ['mysql:', 'mariadb:'], problems), ...(replicas ? { replicas } : {}), statementTimeoutSeconds }
    : { kind: 'sqlite', dir: get('DATA_DIR') ?? './data', statementTimeoutSeconds };
  if (replicas && !databaseUrl) problems.push('DATABASE_REPLICA_URLS needs DATABASE_URL: replicas are of a MySQL primary, not of the embedded store');
  const redisPrefix = get('REDIS_PREFIX') ?? 'animal-store';
  // A hash tag in the prefix would put every key of the deployment in one Cluster slot; the service tags keys itself.
  if (/[{}]/.test(redisPrefix)) problems.push('REDIS_PREFIX must not contain { or }: the service puts each subject\'s keys in one hash slot itself');
  const http: HttpLimits = {
    headersTimeoutSeconds: get('HEADERS_TIMEOUT_SECONDS'), requestTimeoutSeconds: get('REQUEST_TIMEOUT_SECONDS'), maxHeaderBytes: get('MAX_HEADER_BYTES'),
  };
  if (http.requestTimeoutSeconds < http.headersTimeoutSeconds) {
    problems.push('REQUEST_TIMEOUT_SECONDS must be at least HEADERS_TIMEOUT_SECONDS: the headers are part of the request');
  }
  const config: Config = {
    port: get('PORT'), host: get('HOST'), database, redis: redisConfig(env, problems), redisPrefix,
    logLevel: get('LOG_LEVEL'), logFormat: get('LOG_FORMAT'), accessLogSample: get('ACCESS_LOG_SAMPLE'), metricsToken: get('METRICS_TOKEN'),
    admin: adminConfig(get('ADMIN_PORT'), get('ADMIN_HOST'), get('ADMIN_TOKENS'), problems),
    keyCacheTtlSeconds: get('KEY_CACHE_TTL_SECONDS'), tokens: tokenConfig(env, problems), trustProxyHops: get('TRUST_PROXY'), memoryTrimSeconds: get('MEMORY_TRIM_SECONDS'), drainSeconds: get('DRAIN_SECONDS'),
    responseCacheBytes: get('RESPONSE_CACHE_MB') * 1_048_576,
    rateLimits: {
      anonymousPerMinute: get('ANONYMOUS_PER_MINUTE'),
      banThreshold: get('BAN_THRESHOLD'), banWindowSeconds: get('BAN_WINDOW_SECONDS'), banSeconds: get('BAN_SECONDS'),
      windows: { minute: 60, day: 86_400 },
    },
    // Any origin while trying the service out on the embedded store; none by default once it runs on MySQL.
    corsOrigins: origins(env.CORS_ORIGINS ?? (database.kind === 'sqlite' ? '*' : ''), problems),
    subscriptionsPerKey: get('SUBSCRIPTIONS_PER_KEY'), streamQueueEvents: get('STREAM_QUEUE_EVENTS'), eventRetentionHours: get('EVENT_RETENTION_HOURS'),
    webhooks: {
      allowHttp: get('WEBHOOK_ALLOW_HTTP'), allowPrivate: get('WEBHOOK_ALLOW_PRIVATE_TARGETS'), perKey: get('WEBHOOKS_PER_KEY'),
      timeoutMs: get('WEBHOOK_TIMEOUT_SECONDS') * 1_000, concurrency: get('WEBHOOK_CONCURRENCY'), perEndpoint: get('WEBHOOK_ENDPOINT_CONCURRENCY'),
    },
    operationLimits: {
      maxRootFields: get('GRAPHQL_MAX_ROOT_FIELDS'), maxDepth: get('GRAPHQL_MAX_DEPTH'), maxTokens: get('GRAPHQL_MAX_TOKENS'),
      maxDirectives: get('GRAPHQL_MAX_DIRECTIVES'), maxNodes: get('GRAPHQL_MAX_NODES'), maxBatch: get('GRAPHQL_BATCH_LIMIT'),
    },
    persistedDocuments: {
      mode: get('GRAPHQL_DOCUMENTS'), manifestFile: get('PERSISTED_DOCUMENTS_FILE'),
      ttlSeconds: get('PERSISTED_QUERIES_TTL_SECONDS'), perKey: get('PERSISTED_QUERIES_PER_KEY'),
    },
    http,
    tracing: tracingConfig(env, problems),
  };
  // Without a manifest, every key not marked `--documents any` could run nothing at all.
  if (config.persistedDocuments.mode === 'registered' && !config.persistedDocuments.manifestFile) {
    problems.push('GRAPHQL_DOCUMENTS=registered needs PERSISTED_DOCUMENTS_FILE: the trusted documents it lets run');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

