import { bool, booleanSetting, fraction, intInRange, oneOf, trustProxy } from './read.js';

/**
 * Every setting the service reads, in one list: its name, how its text is read, its default, what it
 * means and where the settings page shows it. config.ts reads them from here, the settings page
 * (docs/settings.md) is printed from here by `npm run schema` and checked for drift, and a document
 * that quotes a default reads it from here.
 */
export type Section = 'server' | 'admin' | 'database' | 'replicas' | 'redis' | 'limits' | 'tokens' | 'events' | 'webhooks' | 'graphql' | 'logs' | 'traces';

export const SECTION_TITLES: Readonly<Record<Section, string>> = {
  server: 'Server and HTTP', admin: 'Admin API (keys over HTTP)', database: 'Database', replicas: 'Read replicas (MySQL)', redis: 'Redis',
  limits: 'Keys and rate limits', tokens: 'Access tokens (OpenID Connect)', events: 'Live events', webhooks: 'Webhooks', graphql: 'GraphQL operation limits',
  logs: 'Logs and metrics', traces: 'Traces (OpenTelemetry)',
};

/** What a setting means nothing without: set alone, startup refuses it. */
export type Needs = 'DATABASE_REPLICA_URLS' | 'a Redis' | 'REDIS_SENTINELS' | 'JWT_ISSUERS';

export interface Declared<T> {
  readonly section: Section;
  /** The default as the settings page shows it. */
  readonly shown: string;
  /** What values it takes, for the settings page (a range, a list); none: as the meaning says. */
  readonly takes?: string;
  readonly meaning: string;
  readonly needs?: Needs;
  read(raw: string | undefined, name: string, problems: string[]): T;
}

const digits = (n: number) => n.toLocaleString('en-US');

/** An integer from `min` to `max`; `default` is there for documents that quote it. */
const integer = (section: Section, fallback: number, min: number, max: number, meaning: string, needs?: Needs) => ({
  section, shown: `\`${fallback}\``, takes: `${digits(min)} to ${digits(max)}`, meaning, default: fallback, ...(needs ? { needs } : {}),
  read: (raw: string | undefined, name: string, problems: string[]) => intInRange(raw, name, fallback, min, max, problems),
}) satisfies Declared<number> & { default: number };

const flag = (section: Section, fallback: boolean, meaning: string) => ({
  section, shown: `\`${fallback}\``, takes: 'on or off', meaning,
  read: (raw: string | undefined, name: string, problems: string[]) => bool(raw, name, fallback, problems),
}) satisfies Declared<boolean>;

const choice = <T extends string>(section: Section, allowed: readonly T[], fallback: T, meaning: string, needs?: Needs) => ({
  section, shown: `\`${fallback}\``, takes: allowed.map((one) => `\`${one}\``).join(', '), meaning, ...(needs ? { needs } : {}),
  read: (raw: string | undefined, name: string, problems: string[]) => oneOf(raw, name, allowed, fallback, problems),
}) satisfies Declared<T>;

/** Text read as given (checked in config.ts where it depends on others); empty is unset. */
const text = (section: Section, shown: string, meaning: string, needs?: Needs) => ({
  section, shown, meaning, ...(needs ? { needs } : {}),
  read: (raw: string | undefined) => raw || undefined,
}) satisfies Declared<string | undefined>;

/** Which documents a key may run: any text, or only the manifest's (trusted documents). */
export const DOCUMENT_MODES = ['any', 'registered'] as const;
export type DocumentMode = typeof DOCUMENT_MODES[number];
export const isDocumentMode = (value: unknown): value is DocumentMode => DOCUMENT_MODES.includes(value as DocumentMode);

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;

export const SETTINGS = {
  PORT: integer('server', 8080, 0, 65_535, 'HTTP port'),
  HOST: text('server', 'all interfaces', 'Address to listen on'),
  HEADERS_TIMEOUT_SECONDS: integer('server', 10, 1, 300, 'Time a client has to send the request line and headers'),
  REQUEST_TIMEOUT_SECONDS: integer('server', 30, 1, 3_600, 'Time a client has to send the whole request, body included (at least the headers\' timeout)'),
  MAX_HEADER_BYTES: integer('server', 16_384, 1_024, 1_048_576, 'Largest request line and headers accepted'),
  DRAIN_SECONDS: integer('server', 5, 0, 300,
    'After SIGTERM, how long the instance goes on serving with `/readyz` failing (`503`, `draining`) and every answer closing its connection, so that load balancers and Kubernetes take it out before its listener closes; a second SIGTERM or SIGINT ends the window. `0`: close at once'),
  MEMORY_TRIM_SECONDS: integer('server', 0, 0, 3_600,
    'How often the process looks at its CPU and requests: the first look that finds it quiet (under 5% of a core, at most a request a second) after a busy one gives the heap\'s free pages back to the system (one full collection of 100-300 ms; needs the launch\'s `--expose-gc`). It costs speed: after each trim the heap grows back through extra collections (list20 served 25-45% fewer requests in rounds that followed one). `0`: never'),
  RESPONSE_CACHE_MB: integer('server', 32, 0, 4_096,
    'Memory each instance gives its response cache: the answers of the record reads (pet and order lists and records, REST and GraphQL) kept until a change to a record they read comes through the outbox; least recently used out first. A key always reads its own writes; another key\'s write shows within 1 s. `0`: off (answers still carry validators, and a 304 still costs no point)'),
  ADMIN_PORT: {
    section: 'admin', shown: 'none', takes: '0 to 65,535',
    meaning: 'The port of the admin API (keys, their usage, the audit log), apart from the API\'s; `0`: any free port. Unset: no admin API. Needs ADMIN_TOKENS',
    read: (raw: string | undefined, name: string, problems: string[]) => (raw === undefined || raw === '' ? undefined : intInRange(raw, name, 0, 0, 65_535, problems)),
  } satisfies Declared<number | undefined>,
  ADMIN_HOST: text('admin', '`127.0.0.1`', 'The address the admin API listens on: loopback by default (reach it from the host, or with `kubectl port-forward`)'),
  ADMIN_TOKENS: text('admin', '—', '`name:token,…`: the operators who may call the admin API, each token 32 to 256 visible characters (not an API key); the name goes in the audit log'),
  CORS_ORIGINS: text('server', '`*` on the embedded default, none with `DATABASE_URL`', 'Comma-separated origins (`https://app.example.com`) browsers may call from, or `*`'),
  TRUST_PROXY: {
    section: 'server', shown: '`false`', takes: 'on or off, or 0 to 10',
    meaning: '`true` (one proxy), `false`, or a number of proxies that append to `X-Forwarded-For`; the client address is taken from there instead of the socket',
    read: (raw: string | undefined, _name: string, problems: string[]) => trustProxy(raw, problems),
  } satisfies Declared<number>,

  DATABASE_URL: text('database', '—', '`mysql://user:pass@host:3306/db` to use MySQL/MariaDB; unset: embedded SQLite'),
  DATA_DIR: text('database', '`./data`', 'Where the embedded SQLite file lives (`animal-store.sqlite`)'),
  STATEMENT_TIMEOUT_SECONDS: integer('database', 5, 1, 300, 'Longest a database statement may run or wait for a lock before its request gets `503`'),

  DATABASE_REPLICA_URLS: text('replicas', '—', '`mysql://…,mysql://…`: read replicas of the `DATABASE_URL` primary (up to 16); the API\'s reads go to them'),
  REPLICA_MAX_LAG_SECONDS: integer('replicas', 5, 1, 3_600, 'A replica further behind takes no reads', 'DATABASE_REPLICA_URLS'),
  READ_YOUR_WRITES_SECONDS: integer('replicas', 10, 1, 3_600, 'How long a key\'s reads follow its last write (at least `REPLICA_MAX_LAG_SECONDS` + 2)', 'DATABASE_REPLICA_URLS'),
  REPLICA_WAIT_MS: integer('replicas', 200, 0, 5_000, 'The longest a key\'s read waits for a replica to apply its last write before it reads the primary', 'DATABASE_REPLICA_URLS'),

  REDIS_URL: text('redis', '—', '`redis://host:6379`: limits and open streams shared by every instance, live events woken at once; unset: kept in process (events still cross instances, within a second)'),
  REDIS_SENTINELS: text('redis', '—', '`host:port,host:port`: find the master through Redis Sentinel (instead of `REDIS_URL`), and follow its failovers'),
  REDIS_SENTINEL_MASTER: text('redis', '—', 'The master\'s name in the Sentinels\' `sentinel monitor` (required with `REDIS_SENTINELS`)', 'REDIS_SENTINELS'),
  REDIS_SENTINEL_USERNAME: text('redis', '—', 'The Sentinels\' own user, when they have one', 'REDIS_SENTINELS'),
  REDIS_SENTINEL_PASSWORD: text('redis', '—', 'The Sentinels\' own password, when they have one', 'REDIS_SENTINELS'),
  REDIS_CLUSTER_NODES: text('redis', '—', '`host:port,host:port`: some nodes of a Redis Cluster (instead of `REDIS_URL`); the rest are discovered. Event wake-ups use sharded pub/sub there'),
  REDIS_USERNAME: text('redis', '—', 'User of the Redis data nodes, for any of the three (a `REDIS_URL` may carry it instead)', 'a Redis'),
  REDIS_PASSWORD: text('redis', '—', 'Password of the Redis data nodes, for any of the three (a `REDIS_URL` may carry it instead)', 'a Redis'),
  REDIS_TLS: {
    section: 'redis', shown: '`false`', takes: 'on or off', needs: 'a Redis',
    meaning: '`true`: TLS to the Redis nodes (and to Sentinels); `rediss://` in `REDIS_URL` does the same',
    read: booleanSetting,
  } satisfies Declared<boolean | undefined>,
  REDIS_CALL_DEADLINE_MS: integer('redis', 500, 10, 10_000,
    'The longest a request waits for any Redis call: past it, limits and open-stream counts are kept in the instance, and an `Idempotency-Key` request is answered `503`', 'a Redis'),
  REDIS_PREFIX: text('redis', '`animal-store`', 'Namespace of the service\'s Redis keys; no `{` or `}` (the service puts each key\'s counters in one Cluster slot itself)'),

  KEY_CACHE_TTL_SECONDS: integer('limits', 30, 0, 3_600, 'How long an instance trusts a key lookup; a revoked key works at most this long'),
  ANONYMOUS_PER_MINUTE: integer('limits', 60, 1, 1_000_000, 'Requests a minute per client address without a valid key'),
  BAN_THRESHOLD: integer('limits', 20, 1, 1_000_000, 'Refusals within `BAN_WINDOW_SECONDS` that ban a key'),
  BAN_WINDOW_SECONDS: integer('limits', 60, 1, 86_400, 'The window in which `BAN_THRESHOLD` refusals ban a key'),
  BAN_SECONDS: integer('limits', 600, 1, 604_800, 'How long a ban lasts'),

  JWT_ISSUERS: text('tokens', '—',
    '`https://idp.example.com/,…`: the identity providers whose RFC 9068 access tokens are taken beside keys (up to 8), each `iss` exactly as its tokens carry it; its keys are found from its OpenID discovery document (or RFC 8414 metadata). `https` only, loopback aside'),
  JWT_AUDIENCE: text('tokens', '—', 'This API\'s identifier at the providers (required with `JWT_ISSUERS`): a token\'s `aud` must contain it, or, for a token without `aud` (Cognito\'s), its `client_id` be it', 'JWT_ISSUERS'),
  JWT_PLAN: choice('tokens', ['free', 'pro', 'business', 'enterprise'] as const, 'free', 'The plan whose limits each end user (each token subject) gets, in windows of its own; `enterprise`: `JWT_PER_MINUTE` and `JWT_PER_DAY`', 'JWT_ISSUERS'),
  JWT_PER_MINUTE: integer('tokens', 0, 0, 2_000_000_000, 'With `JWT_PLAN=enterprise` (and only then): each subject\'s requests a minute', 'JWT_ISSUERS'),
  JWT_PER_DAY: integer('tokens', 0, 0, 2_000_000_000, 'With `JWT_PLAN=enterprise` (and only then): each subject\'s requests a day', 'JWT_ISSUERS'),
  JWT_SCOPE_CLAIM: text('tokens', '`scope`', 'The claim that carries a token\'s scopes: a space-separated string or an array (Auth0\'s `permissions`, Okta\'s `scp`)', 'JWT_ISSUERS'),
  JWT_SCOPE_PREFIX: text('tokens', '—', 'A prefix taken off each scope name before it is read (Cognito\'s `<resource server>/`); a scope without it is ignored', 'JWT_ISSUERS'),
  JWT_CLOCK_LEEWAY_SECONDS: integer('tokens', 30, 0, 60, 'How far the provider\'s clock may be from ours for `exp`, `nbf` and `iat`', 'JWT_ISSUERS'),
  JWT_KEYS_REFRESH_SECONDS: integer('tokens', 300, 10, 86_400, 'How often each provider\'s keys are fetched again, in the background (a token naming an unknown key fetches them at most once per 5 s)', 'JWT_ISSUERS'),
  JWT_KEYS_MAX_STALE_SECONDS: integer('tokens', 3_600, 60, 604_800, 'While a provider cannot be reached, how long its last keys keep being trusted', 'JWT_ISSUERS'),
  SUBSCRIPTIONS_PER_KEY: integer('events', 5, 1, 1_000, 'Open subscription streams one key may hold at once, across all instances'),
  STREAM_QUEUE_EVENTS: integer('events', 1_000, 1, 100_000, 'Events a subscription stream holds for a client that reads slower than they come; past it the stream ends with `STREAM_OVERFLOW`'),
  EVENT_RETENTION_HOURS: integer('events', 72, 1, 8_760,
    'How long every change\'s event is kept in the database\'s outbox; older ones are pruned every minute, 500 at a time, lowest ids first (the newest is always kept)'),

  WEBHOOKS_PER_KEY: integer('webhooks', 10, 1, 100, 'Webhook endpoints one key may have'),
  WEBHOOK_TIMEOUT_SECONDS: integer('webhooks', 10, 1, 30, 'How long a receiver has to answer a delivery with a 2xx'),
  WEBHOOK_CONCURRENCY: integer('webhooks', 256, 1, 1_000, 'Webhook requests one instance has in flight at once, to all endpoints together'),
  WEBHOOK_ENDPOINT_CONCURRENCY: integer('webhooks', 2, 1, 16, 'Webhook requests one instance has in flight at once to one endpoint; one while its last attempt failed'),
  WEBHOOK_ALLOW_HTTP: flag('webhooks', false, '`true`: endpoints may use `http://` as well as `https://`'),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: flag('webhooks', false, '`true`: endpoints may point to private, loopback and link-local addresses (tests, a private network)'),

  GRAPHQL_MAX_ROOT_FIELDS: integer('graphql', 20, 1, 1_000, 'Root fields per operation, aliases included'),
  GRAPHQL_MAX_DEPTH: integer('graphql', 8, 2, 100, 'Nesting of selections (`{ pets { id } }` is 2 deep)'),
  GRAPHQL_MAX_TOKENS: integer('graphql', 2_000, 100, 100_000, 'Lexical tokens in the document'),
  GRAPHQL_MAX_DIRECTIVES: integer('graphql', 10, 0, 1_000, 'Directives per operation, its fragments included'),
  // The REST routes' own operations reach 1,501 nodes: the floor leaves them far inside.
  GRAPHQL_MAX_NODES: integer('graphql', 50_000, 10_000, 10_000_000, 'Nodes an operation\'s answer may hold, estimated before it runs and counted while it runs'),
  GRAPHQL_BATCH_LIMIT: integer('graphql', 10, 1, 100,
    'Operations one request may send as a JSON array (a batch); each is held to the limits above, its points and node estimates summed over the batch'),
  GRAPHQL_DOCUMENTS: choice('graphql', DOCUMENT_MODES, 'any',
    '`registered` (needs `PERSISTED_DOCUMENTS_FILE`): only documents of the trusted-documents manifest run (sent by `documentId` or hash), unless the key is marked `--documents any`; `any`: any document, by text or hash'),
  PERSISTED_DOCUMENTS_FILE: text('graphql', '—',
    'A trusted-documents manifest, `{"<id>": "<document>"}` as GraphQL Codegen\'s client preset and the Relay compiler write it: read at startup (a bad one stops it) and again on SIGHUP (a bad one keeps the last)'),
  PERSISTED_QUERIES_TTL_SECONDS: integer('graphql', 86_400, 60, 2_592_000,
    'How long an automatic persisted query (registered by its first request with text and hash) is kept after its registration'),
  PERSISTED_QUERIES_PER_KEY: integer('graphql', 100, 0, 100_000,
    'New automatic persisted queries one key may register per `PERSISTED_QUERIES_TTL_SECONDS`; past it the text still runs, unregistered. `0`: none is registered'),

  LOG_LEVEL: choice('logs', LOG_LEVELS, 'info', 'The least a log line must be to be written'),
  LOG_FORMAT: choice('logs', LOG_FORMATS, 'auto', '`json` (a line each), `pretty` (for people), or `auto`: pretty in a terminal, JSON otherwise'),
  ACCESS_LOG_SAMPLE: {
    section: 'logs', shown: '`1`', takes: 'above 0, at most 1',
    meaning: 'The share of requests answered below 400 that get an access-log line, as a decimal (`0.1`: one in ten, each line marked `"sampled":0.1`); answers of 400 and above always get theirs. `1`: every request',
    read: (raw: string | undefined, name: string, problems: string[]) => fraction(raw, name, 1, problems),
  } satisfies Declared<number>,
  METRICS_TOKEN: text('logs', '—', 'When set, `/metrics` requires `Authorization: Bearer <token>`'),

  OTEL_TRACES_EXPORTER: text('traces', 'off', '`otlp` or `console` turns traces on; `none` keeps them off'),
  OTEL_EXPORTER_OTLP_ENDPOINT: text('traces', '—', 'An OTLP receiver (`http://collector:4318`); set, it turns traces on'),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: text('traces', '—', 'The same, for traces only (the full URL, `…/v1/traces`)'),
  OTEL_EXPORTER_OTLP_PROTOCOL: text('traces', '`http/protobuf`', '`http/protobuf` or `http/json` (gRPC is refused)'),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: text('traces', '—', 'The same, for traces only'),
  OTEL_SDK_DISABLED: text('traces', '`false`', '`true` turns traces off whatever else is set (OpenTelemetry\'s rule: only `true`, in any case, is true)'),
} as const;

export type SettingName = keyof typeof SETTINGS;
type ValueOf<N extends SettingName> = ReturnType<(typeof SETTINGS)[N]['read']>;

/** Reads settings from `env`, each problem pushed onto `problems` (all reported at once). */
export function settingsReader(env: NodeJS.ProcessEnv, problems: string[]) {
  return <N extends SettingName>(name: N): ValueOf<N> =>
    (SETTINGS[name] as Declared<ValueOf<N>>).read(env[name], name, problems);
}

/** The settings that mean nothing without `what`: set alone, each is refused by name. */
export const settingsNeeding = (what: Needs): SettingName[] =>
  (Object.keys(SETTINGS) as SettingName[]).filter((name) => (SETTINGS[name] as Declared<unknown>).needs === what);
