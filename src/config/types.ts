import type { LOG_FORMATS, LOG_LEVELS } from '../settings/declarations.js';
import type { HostPort } from '../settings/read.js';

/** The service's configuration as loadConfig (config.ts) gives it: read once at startup, frozen. */
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

/** Access tokens from OpenID providers, taken beside keys (auth/tokens/). */
export interface TokenConfig {
  /** Each exactly as its tokens' `iss` carries it. */
  readonly issuers: readonly string[];
  readonly audience: string;
  /** The plan each token subject is on. */
  readonly plan: 'free' | 'pro' | 'business' | 'enterprise';
  /** An enterprise plan's limits for each subject; 0 on the others (theirs are the plan's). */
  readonly perMinute: number;
  readonly perDay: number;
  readonly scopeClaim: string;
  readonly scopePrefix: string;
  readonly leewaySeconds: number;
  readonly refreshSeconds: number;
  readonly maxStaleSeconds: number;
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
  /** undefined: no issuers, so a bearer is a key or nothing. */
  readonly tokens: TokenConfig | undefined;
  /** How many proxies in front append to X-Forwarded-For; 0: the socket's address is the client's. */
  readonly trustProxyHops: number;
  /** How often the process looks whether a busy spell has ended, to give its heap back (ops/memory-trim.ts); 0: never. */
  readonly memoryTrimSeconds: number;
  /** After SIGTERM: seconds of serving with readiness failing before the listener closes (the drain window). */
  readonly drainSeconds: number;
  /** Memory for the response cache (cache/); 0: off. */
  readonly responseCacheBytes: number;
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
  /** The admin API (keys over HTTP) on a port of its own, when ADMIN_PORT is set. */
  readonly admin: AdminConfig | undefined;
  /** Open subscription streams one key may hold at once, across every instance. */
  readonly subscriptionsPerKey: number;
  /** Events one subscription stream may hold for a client that reads slower than they come; past it, the stream ends. */
  readonly streamQueueEvents: number;
  /** How long the outbox keeps each event (for resuming streams, the feed and webhooks). */
  readonly eventRetentionHours: number;
  readonly webhooks: WebhookConfig;
  readonly operationLimits: OperationLimits;
  readonly persistedDocuments: PersistedDocumentsConfig;
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
  /** Operations one request may send as a batch (a JSON array). */
  readonly maxBatch: number;
}

/** Persisted documents: the trusted manifest, and the automatic persisted queries clients register. */
export interface PersistedDocumentsConfig {
  /** `registered`: only the manifest's documents run, for keys not marked otherwise. */
  readonly mode: 'any' | 'registered';
  readonly manifestFile: string | undefined;
  readonly ttlSeconds: number;
  /** New registrations per key and TTL window. */
  readonly perKey: number;
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

export type LogLevel = (typeof LOG_LEVELS)[number];

export interface AdminConfig {
  readonly port: number;
  readonly host: string;
  /** Each operator's name by token. */
  readonly operators: ReadonlyMap<string, string>;
}
