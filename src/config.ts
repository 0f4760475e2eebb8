/** The only reader of process.env: every setting is checked here, all problems reported at once. */

export type DatabaseConfig = (
  | { readonly kind: 'sqlite'; readonly dir: string }
  | { readonly kind: 'mysql'; readonly url: string; readonly replicas?: ReplicaConfig }
) & {
  /** The longest a statement may run (or wait for a lock) before the request gets 503 instead of hanging. */
  readonly statementTimeoutSeconds: number;
};

/** Read replicas of the MySQL primary: where the API's reads may go, and how far behind they may be. */
export interface ReplicaConfig {
  readonly urls: readonly string[];
  /** A replica further behind than this takes no reads. */
  readonly maxLagSeconds: number;
  /** How long a key's reads follow its last write: waited for on a replica, or read on the primary. */
  readonly readYourWritesSeconds: number;
  /** The longest a read waits for a replica to reach its key's last write before it reads the primary. */
  readonly waitMs: number;
}

export interface Config {
  readonly port: number;
  /** undefined: every interface, as node:http does by default. */
  readonly host: string | undefined;
  readonly database: DatabaseConfig;
  /** Where limits, stream slots, idempotency claims and events are shared; undefined: in the process only. */
  readonly redis: RedisConfig | undefined;
  /** Namespace of every Redis key, so deployments (or test servers) can share one Redis. */
  readonly redisPrefix: string;
  readonly logLevel: LogLevel;
  readonly keyCacheTtlSeconds: number;
  /** How many proxies in front append to X-Forwarded-For; 0: the socket's address is the client's. */
  readonly trustProxyHops: number;
  readonly rateLimits: RateLimitsConfig;
  /** Origins browsers may call from; '*' for any. */
  readonly corsOrigins: readonly string[];
  /** `json` (one line per entry), `pretty` (for people), or `auto`: pretty in a terminal. */
  readonly logFormat: LogFormat;
  /**
   * The share of answers below 400 that get an access-log line (0 < x <= 1); 1: every request. Answers
   * of 400 and above always get theirs.
   */
  readonly accessLogSample: number;
  /** When set, /metrics wants `Authorization: Bearer <token>`; otherwise it is public. */
  readonly metricsToken: string | undefined;
  /** Open subscription streams one key may hold at once, across every instance. */
  readonly subscriptionsPerKey: number;
  /** Events one subscription stream may hold for a client that reads slower than they come; past it, the stream ends. */
  readonly streamQueueEvents: number;
  /** How long the outbox keeps each event (for resuming streams, the feed and webhooks). */
  readonly eventRetentionHours: number;
  readonly webhooks: WebhookConfig;
  readonly operationLimits: OperationLimits;
  readonly http: HttpLimits;
  /** OpenTelemetry traces, when the standard OTEL_* variables ask for them; undefined: off, and nothing of it loaded. */
  readonly tracing: TracingConfig | undefined;
}

/**
 * Where spans go. The SDK reads the rest of the standard variables itself (OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES, the endpoint, headers, timeouts, OTEL_TRACES_SAMPLER, OTEL_BSP_*).
 */
export interface TracingConfig {
  /** An OTLP receiver (a collector, or a backend that takes OTLP), or stdout for a look while developing. */
  readonly exporter: 'otlp' | 'console';
  /** OTLP over HTTP only: protobuf (the specification's default) or JSON. */
  readonly protocol: 'http/protobuf' | 'http/json';
}

export interface WebhookConfig {
  /** `http://` targets allowed besides `https://`. */
  readonly allowHttp: boolean;
  /** Private, loopback, link-local and metadata addresses allowed as targets (tests, a private network). */
  readonly allowPrivate: boolean;
  /** Endpoints one key may have. */
  readonly perKey: number;
  /** How long a receiver has to answer with a 2xx. */
  readonly timeoutMs: number;
  /** Requests in flight at once on one instance, to every endpoint together. */
  readonly concurrency: number;
  /** Requests in flight at once to one endpoint, on one instance. */
  readonly perEndpoint: number;
}

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** One Redis (a URL), a master found through Sentinels, or a Cluster (any of its nodes: the rest are discovered). */
export type RedisTopology =
  | { readonly kind: 'single'; readonly url: string }
  | { readonly kind: 'sentinel'; readonly sentinels: readonly HostPort[]; readonly master: string; readonly sentinelUsername?: string; readonly sentinelPassword?: string }
  | { readonly kind: 'cluster'; readonly nodes: readonly HostPort[] };

export interface RedisConfig {
  readonly topology: RedisTopology;
  /** For the data nodes of any topology (a single Redis may carry them in its URL instead). */
  readonly username?: string;
  readonly password?: string;
  readonly tls: boolean;
  /** The longest a request waits for any Redis call before it answers from the in-process fallback. */
  readonly callDeadlineMs: number;
}

/** What one GraphQL operation may ask for, checked before it runs. */
export interface OperationLimits {
  /** Root fields per operation, aliases included: each costs a point. */
  readonly maxRootFields: number;
  /** Nesting of selections: `{ pets { id } }` is 2 deep. */
  readonly maxDepth: number;
  /** Lexical tokens in the document: bounds the work of parsing anything at all. */
  readonly maxTokens: number;
  /** Directives per operation, its fragments included. */
  readonly maxDirectives: number;
  /**
   * Nodes (fields and list items) an answer may hold: estimated before the operation runs (each list at
   * its page size), and counted while it runs.
   */
  readonly maxNodes: number;
}

/** Bounds on what a client connection may hold: slow or oversized requests are cut off. */
export interface HttpLimits {
  /** Time to receive the request line and headers (slowloris). */
  readonly headersTimeoutSeconds: number;
  /** Time to receive the whole request, body included. */
  readonly requestTimeoutSeconds: number;
  /** Size of the request line and headers together. */
  readonly maxHeaderBytes: number;
}

const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface RateLimitsConfig {
  /** Requests a minute per client address without a valid key. */
  readonly anonymousPerMinute: number;
  /** Refusals within `banWindowSeconds` that ban a key for `banSeconds`. */
  readonly banThreshold: number;
  readonly banWindowSeconds: number;
  readonly banSeconds: number;
  /** Window lengths; only tests shorten them (not settable from the environment). */
  readonly windows: { readonly minute: number; readonly day: number };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n- ${problems.join('\n- ')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const port = intInRange(env.PORT, 'PORT', 8080, 0, 65_535, problems);
  const statementTimeoutSeconds = intInRange(env.STATEMENT_TIMEOUT_SECONDS, 'STATEMENT_TIMEOUT_SECONDS', 5, 1, 300, problems);
  const replicas = replicaConfig(env, problems);
  const database: DatabaseConfig = env.DATABASE_URL
    ? { kind: 'mysql', url: url(env.DATABASE_URL, 'DATABASE_URL', ['mysql:', 'mariadb:'], problems), ...(replicas ? { replicas } : {}), statementTimeoutSeconds }
    : { kind: 'sqlite', dir: env.DATA_DIR || './data', statementTimeoutSeconds };
  if (replicas && !env.DATABASE_URL) problems.push('DATABASE_REPLICA_URLS needs DATABASE_URL: replicas are of a MySQL primary, not of the embedded store');
  const redis = redisConfig(env, problems);
  const redisPrefix = env.REDIS_PREFIX || 'animal-store';
  // A hash tag in the prefix would put every key of the deployment in one Cluster slot; the service tags keys itself.
  if (/[{}]/.test(redisPrefix)) problems.push('REDIS_PREFIX must not contain { or }: the service puts each subject\'s keys in one hash slot itself');
  const logLevel = oneOf(env.LOG_LEVEL, 'LOG_LEVEL', LOG_LEVELS, 'info', problems);
  const keyCacheTtlSeconds = intInRange(env.KEY_CACHE_TTL_SECONDS, 'KEY_CACHE_TTL_SECONDS', 30, 0, 3_600, problems);
  const trustProxyHops = trustProxy(env.TRUST_PROXY, problems);
  const subscriptionsPerKey = intInRange(env.SUBSCRIPTIONS_PER_KEY, 'SUBSCRIPTIONS_PER_KEY', 5, 1, 1_000, problems);
  const streamQueueEvents = intInRange(env.STREAM_QUEUE_EVENTS, 'STREAM_QUEUE_EVENTS', 1_000, 1, 100_000, problems);
  const eventRetentionHours = intInRange(env.EVENT_RETENTION_HOURS, 'EVENT_RETENTION_HOURS', 72, 1, 8_760, problems);
  const webhooks: WebhookConfig = {
    allowHttp: bool(env.WEBHOOK_ALLOW_HTTP, 'WEBHOOK_ALLOW_HTTP', false, problems),
    allowPrivate: bool(env.WEBHOOK_ALLOW_PRIVATE_TARGETS, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false, problems),
    perKey: intInRange(env.WEBHOOKS_PER_KEY, 'WEBHOOKS_PER_KEY', 10, 1, 100, problems),
    timeoutMs: intInRange(env.WEBHOOK_TIMEOUT_SECONDS, 'WEBHOOK_TIMEOUT_SECONDS', 10, 1, 30, problems) * 1_000,
    concurrency: intInRange(env.WEBHOOK_CONCURRENCY, 'WEBHOOK_CONCURRENCY', 256, 1, 1_000, problems),
    perEndpoint: intInRange(env.WEBHOOK_ENDPOINT_CONCURRENCY, 'WEBHOOK_ENDPOINT_CONCURRENCY', 2, 1, 16, problems),
  };
  const rateLimits: RateLimitsConfig = {
    anonymousPerMinute: intInRange(env.ANONYMOUS_PER_MINUTE, 'ANONYMOUS_PER_MINUTE', 60, 1, 1_000_000, problems),
    banThreshold: intInRange(env.BAN_THRESHOLD, 'BAN_THRESHOLD', 20, 1, 1_000_000, problems),
    banWindowSeconds: intInRange(env.BAN_WINDOW_SECONDS, 'BAN_WINDOW_SECONDS', 60, 1, 86_400, problems),
    banSeconds: intInRange(env.BAN_SECONDS, 'BAN_SECONDS', 600, 1, 604_800, problems),
    windows: { minute: 60, day: 86_400 },
  };

  // Any origin while trying the service out on the embedded store; none by default once it runs on MySQL.
  const corsOrigins = origins(env.CORS_ORIGINS ?? (database.kind === 'sqlite' ? '*' : ''), problems);
  const logFormat = oneOf(env.LOG_FORMAT, 'LOG_FORMAT', LOG_FORMATS, 'auto', problems);
  const accessLogSample = fraction(env.ACCESS_LOG_SAMPLE, 'ACCESS_LOG_SAMPLE', 1, problems);
  const operationLimits: OperationLimits = {
    maxRootFields: intInRange(env.GRAPHQL_MAX_ROOT_FIELDS, 'GRAPHQL_MAX_ROOT_FIELDS', 20, 1, 1_000, problems),
    maxDepth: intInRange(env.GRAPHQL_MAX_DEPTH, 'GRAPHQL_MAX_DEPTH', 8, 2, 100, problems),
    maxTokens: intInRange(env.GRAPHQL_MAX_TOKENS, 'GRAPHQL_MAX_TOKENS', 2_000, 100, 100_000, problems),
    maxDirectives: intInRange(env.GRAPHQL_MAX_DIRECTIVES, 'GRAPHQL_MAX_DIRECTIVES', 10, 0, 1_000, problems),
    // The REST routes' own operations reach 1,501 nodes: the floor leaves them far inside.
    maxNodes: intInRange(env.GRAPHQL_MAX_NODES, 'GRAPHQL_MAX_NODES', 50_000, 10_000, 10_000_000, problems),
  };
  const http: HttpLimits = {
    headersTimeoutSeconds: intInRange(env.HEADERS_TIMEOUT_SECONDS, 'HEADERS_TIMEOUT_SECONDS', 10, 1, 300, problems),
    requestTimeoutSeconds: intInRange(env.REQUEST_TIMEOUT_SECONDS, 'REQUEST_TIMEOUT_SECONDS', 30, 1, 3_600, problems),
    maxHeaderBytes: intInRange(env.MAX_HEADER_BYTES, 'MAX_HEADER_BYTES', 16_384, 1_024, 1_048_576, problems),
  };
  if (http.requestTimeoutSeconds < http.headersTimeoutSeconds) {
    problems.push('REQUEST_TIMEOUT_SECONDS must be at least HEADERS_TIMEOUT_SECONDS: the headers are part of the request');
  }

  const tracing = tracingConfig(env, problems);

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    port, host: env.HOST || undefined, database, redis, redisPrefix,
    logLevel, keyCacheTtlSeconds, trustProxyHops, rateLimits, corsOrigins, logFormat, accessLogSample, metricsToken: env.METRICS_TOKEN || undefined,
    subscriptionsPerKey, streamQueueEvents, eventRetentionHours, webhooks, operationLimits, http, tracing,
  });
}

const REPLICA_SETTINGS = ['REPLICA_MAX_LAG_SECONDS', 'READ_YOUR_WRITES_SECONDS', 'REPLICA_WAIT_MS'] as const;

function replicaConfig(env: NodeJS.ProcessEnv, problems: string[]): ReplicaConfig | undefined {
  if (!env.DATABASE_REPLICA_URLS) {
    const orphans = REPLICA_SETTINGS.filter((name) => env[name]);
    if (orphans.length > 0) problems.push(`${orphans.join(', ')} ${orphans.length > 1 ? 'are' : 'is'} set without DATABASE_REPLICA_URLS`);
    return undefined;
  }
  const urls = env.DATABASE_REPLICA_URLS.split(',').map((item) => item.trim());
  if (urls.length > 16 || urls.some((item) => !item)) {
    problems.push('DATABASE_REPLICA_URLS must be 1 to 16 mysql:// URLs, separated by commas');
  } else {
    urls.forEach((item, i) => url(item, `DATABASE_REPLICA_URLS (the ${ordinal(i + 1)})`, ['mysql:', 'mariadb:'], problems));
  }
  const maxLagSeconds = intInRange(env.REPLICA_MAX_LAG_SECONDS, 'REPLICA_MAX_LAG_SECONDS', 5, 1, 3_600, problems);
  const readYourWritesSeconds = intInRange(env.READ_YOUR_WRITES_SECONDS, 'READ_YOUR_WRITES_SECONDS', 10, 1, 3_600, problems);
  const waitMs = intInRange(env.REPLICA_WAIT_MS, 'REPLICA_WAIT_MS', 200, 0, 5_000, problems);
  // A replica's lag is read every second, in whole seconds: a write older than the window plus that is
  // on every replica that takes reads, so the window must cover it or a key could miss its own write.
  if (readYourWritesSeconds < maxLagSeconds + 2) {
    problems.push(`READ_YOUR_WRITES_SECONDS (${readYourWritesSeconds}) must be at least REPLICA_MAX_LAG_SECONDS + 2 (${maxLagSeconds + 2}): `
      + 'after the window, a key\'s reads go to any replica, which may be that far behind');
  }
  return { urls, maxLagSeconds, readYourWritesSeconds, waitMs };
}

const ordinal = (n: number) => `${n}${n === 1 ? 'st' : n === 2 ? 'nd' : n === 3 ? 'rd' : 'th'}`;

const TRACES_EXPORTERS = ['otlp', 'console', 'none'] as const;
const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;

/**
 * Traces are on when an exporter is named (OTEL_TRACES_EXPORTER) or an OTLP endpoint is given, unless
 * OTEL_SDK_DISABLED is true or the exporter is `none`; off by default. Decided once, here: when off,
 * main.ts loads nothing of OpenTelemetry, and the other OTEL_* variables (which an environment may set
 * for every service it runs) are not this service's to judge. gRPC is refused rather than sent as HTTP
 * to a gRPC port.
 */
function tracingConfig(env: NodeJS.ProcessEnv, problems: string[]): TracingConfig | undefined {
  if (otelBoolean(env.OTEL_SDK_DISABLED, 'OTEL_SDK_DISABLED', problems)) return undefined;
  const endpoints = (['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'] as const).filter((name) => env[name]);
  if (!env.OTEL_TRACES_EXPORTER && endpoints.length === 0) return undefined;
  const exporter = oneOf(env.OTEL_TRACES_EXPORTER, 'OTEL_TRACES_EXPORTER', TRACES_EXPORTERS, 'otlp', problems);
  if (exporter === 'none') return undefined;
  for (const name of endpoints) url(env[name]!, name, ['http:', 'https:'], problems);
  const protocolName = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const given = env[protocolName];
  if (given === 'grpc') {
    problems.push(`${protocolName}=grpc is not supported: OTLP goes over HTTP (http/protobuf or http/json)`);
    return undefined;
  }
  return { exporter, protocol: oneOf(given, protocolName, OTLP_PROTOCOLS, 'http/protobuf', problems) };
}

const REDIS_TOPOLOGIES = ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'] as const;

/** At most one topology; credentials and TLS apply to whichever is set, and mean nothing without one. */
function redisConfig(env: NodeJS.ProcessEnv, problems: string[]): RedisConfig | undefined {
  const given = REDIS_TOPOLOGIES.filter((name) => env[name]);
  const tlsGiven = booleanSetting(env.REDIS_TLS, 'REDIS_TLS', problems);
  const tls = tlsGiven ?? false;
  const callDeadlineMs = intInRange(env.REDIS_CALL_DEADLINE_MS, 'REDIS_CALL_DEADLINE_MS', 500, 10, 10_000, problems);
  const credentials = { ...(env.REDIS_USERNAME ? { username: env.REDIS_USERNAME } : {}), ...(env.REDIS_PASSWORD ? { password: env.REDIS_PASSWORD } : {}) };
  const sentinelOnly = ['REDIS_SENTINEL_MASTER', 'REDIS_SENTINEL_USERNAME', 'REDIS_SENTINEL_PASSWORD'].filter((name) => env[name]);
  if (given.length > 1) {
    problems.push(`${given.join(' and ')} are set: choose one Redis topology (a single Redis, Sentinels or a Cluster)`);
    return undefined;
  }
  if (given.length === 0) {
    const orphans = ['REDIS_USERNAME', 'REDIS_PASSWORD', 'REDIS_TLS', 'REDIS_CALL_DEADLINE_MS', ...sentinelOnly].filter((name) => env[name]);
    if (orphans.length > 0) problems.push(`${orphans.join(', ')} ${orphans.length > 1 ? 'are' : 'is'} set without a Redis: set REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES`);
    return undefined;
  }
  if (given[0] !== 'REDIS_SENTINELS' && sentinelOnly.length > 0) {
    problems.push(`${sentinelOnly.join(', ')} ${sentinelOnly.length > 1 ? 'go' : 'goes'} with REDIS_SENTINELS, not ${given[0]}`);
  }
  let topology: RedisTopology;
  if (given[0] === 'REDIS_URL') {
    const raw = url(env.REDIS_URL!, 'REDIS_URL', ['redis:', 'rediss:'], problems);
    const parsed = URL.canParse(raw) ? new URL(raw) : undefined;
    if (parsed && (parsed.username || parsed.password) && (env.REDIS_USERNAME || env.REDIS_PASSWORD)) {
      problems.push('REDIS_URL carries credentials and REDIS_USERNAME or REDIS_PASSWORD is set too: give them one way');
    }
    if (parsed?.protocol === 'rediss:' && tlsGiven === false) problems.push('REDIS_URL is rediss:// (TLS) and REDIS_TLS is false: give them one way');
    topology = { kind: 'single', url: raw };
  } else if (given[0] === 'REDIS_SENTINELS') {
    const master = env.REDIS_SENTINEL_MASTER ?? '';
    if (!master) problems.push('REDIS_SENTINEL_MASTER must name the master the Sentinels watch (as in their `sentinel monitor`)');
    topology = {
      kind: 'sentinel', sentinels: hostPorts(env.REDIS_SENTINELS!, 'REDIS_SENTINELS', 26379, problems), master,
      ...(env.REDIS_SENTINEL_USERNAME ? { sentinelUsername: env.REDIS_SENTINEL_USERNAME } : {}),
      ...(env.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: env.REDIS_SENTINEL_PASSWORD } : {}),
    };
  } else {
    topology = { kind: 'cluster', nodes: hostPorts(env.REDIS_CLUSTER_NODES!, 'REDIS_CLUSTER_NODES', 6379, problems) };
  }
  return { topology, ...credentials, tls, callDeadlineMs };
}

/** `host:port,host:port` (a port may be left out; IPv6 in brackets: `[::1]:7000`). */
function hostPorts(raw: string, name: string, defaultPort: number, problems: string[]): HostPort[] {
  const list: HostPort[] = [];
  for (const item of raw.split(',').map((part) => part.trim()).filter(Boolean)) {
    const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(item);
    const port = match?.[2] === undefined ? defaultPort : Number(match[2]);
    if (!match || port < 1 || port > 65_535) {
      problems.push(`${name} must list host:port pairs separated by commas, like redis-1:${defaultPort},redis-2:${defaultPort}; got "${item}"`);
      continue;
    }
    list.push({ host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port });
  }
  if (list.length === 0 && !problems.some((p) => p.startsWith(name))) problems.push(`${name} must list at least one host:port`);
  return list;
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);
/** How a refusal of a boolean setting names what it takes. */
const BOOLEAN_WORDS = 'true or false (or 1/0, yes/no, on/off, in any case)';

/**
 * The one reader of on/off settings: the spellings operators write (`true`/`false`, `1`/`0`, `yes`/`no`,
 * `on`/`off`), in any case, spaces around them ignored (an env file's trailing space). Unset or empty is
 * undefined, as for every setting: the default applies. Any other word is `null`, for the caller to refuse.
 */
export function parseBoolean(raw: string | undefined): boolean | null | undefined {
  const word = raw?.trim().toLowerCase();
  if (!word) return undefined;
  if (TRUE_WORDS.has(word)) return true;
  return FALSE_WORDS.has(word) ? false : null;
}

/** A boolean setting as given (undefined when unset or refused), so a caller can tell "off" from "not said". */
function booleanSetting(raw: string | undefined, name: string, problems: string[]): boolean | undefined {
  const value = parseBoolean(raw);
  if (value === null) problems.push(`${name} must be ${BOOLEAN_WORDS}, got "${raw}"`);
  return value ?? undefined;
}

function bool(raw: string | undefined, name: string, fallback: boolean, problems: string[]): boolean {
  return booleanSetting(raw, name, problems) ?? fallback;
}

/**
 * OpenTelemetry's own rule for its boolean variables (the specification's "Boolean value"): only `true`,
 * in any case, is true, and an SDK must not read more spellings as true, so `1`, `yes` or `on` are not
 * taken here either: every OpenTelemetry SDK beside this service would read them as false. Where the
 * specification falls back to false with a warning, startup stops instead, naming the setting: a switch
 * meant to turn traces off must not leave them on unnoticed.
 */
function otelBoolean(raw: string | undefined, name: string, problems: string[]): boolean {
  if (raw === undefined || raw === '') return false;
  const word = raw.toLowerCase();
  if (word === 'true' || word === 'false') return word === 'true';
  problems.push(`${name} must be true or false, in any case (OpenTelemetry's rule: its SDKs read any other value, 1 and yes included, as false), got "${raw}"`);
  return false;
}

function origins(raw: string, problems: string[]): string[] {
  const list = raw.split(',').map((o) => o.trim()).filter(Boolean);
  for (const origin of list) {
    if (origin === '*') continue;
    let parsed: URL | undefined;
    try { parsed = new URL(origin); } catch { /* reported below */ }
    if (!parsed || parsed.origin !== origin) {
      problems.push(`CORS_ORIGINS must list origins like https://app.example.com (scheme, host, optional port; no path), or *; got "${origin}"`);
    }
  }
  return list;
}

/** `true` is one proxy, `false` none, or a number of hops; the boolean spellings are the other settings' (`1` is one hop either way). */
function trustProxy(raw: string | undefined, problems: string[]): number {
  const trimmed = raw?.trim() ?? '';
  if (/^\d+$/.test(trimmed)) return intInRange(trimmed, 'TRUST_PROXY (a number of proxy hops)', 0, 0, 10, problems);
  const value = parseBoolean(raw);
  if (value === null) problems.push(`TRUST_PROXY must be ${BOOLEAN_WORDS}, or a number of proxy hops from 0 to 10, got "${raw}"`);
  return value ? 1 : 0;
}

function intInRange(
  raw: string | undefined, name: string, fallback: number, min: number, max: number, problems: string[],
): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/**
 * A share above 0 and at most 1, as a plain decimal (`0.1`, `.05`, `1`): no exponent, sign or percent,
 * so a typo is refused rather than read as some other rate. 0 is refused too: a line kept at a rate
 * stands for 1/rate requests, and at 0 the requests that went well would leave no trace at all.
 */
function fraction(raw: string | undefined, name: string, fallback: number, problems: string[]): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (/^(?:\d+(?:\.\d+)?|\.\d+)$/.test(raw) && value > 0 && value <= 1) return value;
  problems.push(`${name} must be a decimal fraction greater than 0 and at most 1 (0.1: one in ten), got "${raw}"`);
  return fallback;
}

function url(raw: string, name: string, protocols: readonly string[], problems: string[]): string {
  try {
    const parsed = new URL(raw);
    if (!protocols.includes(parsed.protocol)) {
      problems.push(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
    }
  } catch {
    // The value may hold a password: name the setting, never echo it.
    problems.push(`${name} is not a valid URL`);
  }
  return raw;
}

function oneOf<T extends string>(
  raw: string | undefined, name: string, allowed: readonly T[], fallback: T, problems: string[],
): T {
  if (raw === undefined || raw === '') return fallback;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return fallback;
}
