/** The only reader of process.env: every setting is checked here, all problems reported at once. */

export type DatabaseConfig = (
  | { readonly kind: 'sqlite'; readonly dir: string }
  | { readonly kind: 'mysql'; readonly url: string }
) & {
  /** The longest a statement may run (or wait for a lock) before the request gets 503 instead of hanging. */
  readonly statementTimeoutSeconds: number;
};

export interface Config {
  readonly port: number;
  /** undefined: every interface, as node:http does by default. */
  readonly host: string | undefined;
  readonly database: DatabaseConfig;
  readonly redisUrl: string | undefined;
  /** Namespace of every Redis key, so deployments (or test servers) can share one Redis. */
  readonly redisPrefix: string;
  readonly logLevel: LogLevel;
  readonly keyCacheTtlSeconds: number;
  /** How many proxies in front append to X-Forwarded-For; 0: the socket's address is the client's. */
  readonly trustProxyHops: number;
  readonly limits: LimitsConfig;
  /** Origins browsers may call from; '*' for any. */
  readonly corsOrigins: readonly string[];
  /** `json` (one line per entry), `pretty` (for people), or `auto`: pretty in a terminal. */
  readonly logFormat: LogFormat;
  /** When set, /metrics wants `Authorization: Bearer <token>`; otherwise it is public. */
  readonly metricsToken: string | undefined;
  /** Open subscription streams one key may hold at once, across every instance. */
  readonly subscriptionsPerKey: number;
  /** Events one subscription stream may hold for a client that reads slower than they come; past it, the stream ends. */
  readonly streamQueueEvents: number;
  readonly graphql: OperationLimits;
  readonly http: HttpLimits;
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

export interface LimitsConfig {
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
  const database: DatabaseConfig = env.DATABASE_URL
    ? { kind: 'mysql', url: url(env.DATABASE_URL, 'DATABASE_URL', ['mysql:', 'mariadb:'], problems), statementTimeoutSeconds }
    : { kind: 'sqlite', dir: env.DATA_DIR || './data', statementTimeoutSeconds };
  const redisUrl = env.REDIS_URL ? url(env.REDIS_URL, 'REDIS_URL', ['redis:', 'rediss:'], problems) : undefined;
  const logLevel = oneOf(env.LOG_LEVEL, 'LOG_LEVEL', LOG_LEVELS, 'info', problems);
  const keyCacheTtlSeconds = intInRange(env.KEY_CACHE_TTL_SECONDS, 'KEY_CACHE_TTL_SECONDS', 30, 0, 3_600, problems);
  const trustProxyHops = trustProxy(env.TRUST_PROXY, problems);
  const subscriptionsPerKey = intInRange(env.SUBSCRIPTIONS_PER_KEY, 'SUBSCRIPTIONS_PER_KEY', 5, 1, 1_000, problems);
  const streamQueueEvents = intInRange(env.STREAM_QUEUE_EVENTS, 'STREAM_QUEUE_EVENTS', 1_000, 1, 100_000, problems);
  const limits: LimitsConfig = {
    anonymousPerMinute: intInRange(env.ANONYMOUS_PER_MINUTE, 'ANONYMOUS_PER_MINUTE', 60, 1, 1_000_000, problems),
    banThreshold: intInRange(env.BAN_THRESHOLD, 'BAN_THRESHOLD', 20, 1, 1_000_000, problems),
    banWindowSeconds: intInRange(env.BAN_WINDOW_SECONDS, 'BAN_WINDOW_SECONDS', 60, 1, 86_400, problems),
    banSeconds: intInRange(env.BAN_SECONDS, 'BAN_SECONDS', 600, 1, 604_800, problems),
    windows: { minute: 60, day: 86_400 },
  };

  // Any origin while trying the service out on the embedded store; none by default once it runs on MySQL.
  const corsOrigins = origins(env.CORS_ORIGINS ?? (database.kind === 'sqlite' ? '*' : ''), problems);
  const logFormat = oneOf(env.LOG_FORMAT, 'LOG_FORMAT', LOG_FORMATS, 'auto', problems);
  const graphql: OperationLimits = {
    maxRootFields: intInRange(env.GRAPHQL_MAX_ROOT_FIELDS, 'GRAPHQL_MAX_ROOT_FIELDS', 20, 1, 1_000, problems),
    maxDepth: intInRange(env.GRAPHQL_MAX_DEPTH, 'GRAPHQL_MAX_DEPTH', 8, 2, 100, problems),
    maxTokens: intInRange(env.GRAPHQL_MAX_TOKENS, 'GRAPHQL_MAX_TOKENS', 2_000, 100, 100_000, problems),
    maxDirectives: intInRange(env.GRAPHQL_MAX_DIRECTIVES, 'GRAPHQL_MAX_DIRECTIVES', 10, 0, 1_000, problems),
  };
  const http: HttpLimits = {
    headersTimeoutSeconds: intInRange(env.HEADERS_TIMEOUT_SECONDS, 'HEADERS_TIMEOUT_SECONDS', 10, 1, 300, problems),
    requestTimeoutSeconds: intInRange(env.REQUEST_TIMEOUT_SECONDS, 'REQUEST_TIMEOUT_SECONDS', 30, 1, 3_600, problems),
    maxHeaderBytes: intInRange(env.MAX_HEADER_BYTES, 'MAX_HEADER_BYTES', 16_384, 1_024, 1_048_576, problems),
  };
  if (http.requestTimeoutSeconds < http.headersTimeoutSeconds) {
    problems.push('REQUEST_TIMEOUT_SECONDS must be at least HEADERS_TIMEOUT_SECONDS: the headers are part of the request');
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    port, host: env.HOST || undefined, database, redisUrl, redisPrefix: env.REDIS_PREFIX || 'animal-store',
    logLevel, keyCacheTtlSeconds, trustProxyHops, limits, corsOrigins, logFormat, metricsToken: env.METRICS_TOKEN || undefined,
    subscriptionsPerKey, streamQueueEvents, graphql, http,
  });
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

function trustProxy(raw: string | undefined, problems: string[]): number {
  if (raw === undefined || raw === '' || raw === 'false') return 0;
  if (raw === 'true') return 1;
  return intInRange(raw, 'TRUST_PROXY (true, false or a number of proxy hops)', 0, 0, 10, problems);
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
