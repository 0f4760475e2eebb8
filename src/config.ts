/** The only reader of process.env: every setting is checked here, all problems reported at once. */

export type DatabaseConfig =
  | { readonly kind: 'sqlite'; readonly dir: string }
  | { readonly kind: 'mysql'; readonly url: string };

export interface Config {
  readonly port: number;
  /** undefined: every interface, as node:http does by default. */
  readonly host: string | undefined;
  readonly database: DatabaseConfig;
  readonly redisUrl: string | undefined;
  readonly logLevel: LogLevel;
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
  const database: DatabaseConfig = env.DATABASE_URL
    ? { kind: 'mysql', url: url(env.DATABASE_URL, 'DATABASE_URL', ['mysql:', 'mariadb:'], problems) }
    : { kind: 'sqlite', dir: env.DATA_DIR || './data' };
  const redisUrl = env.REDIS_URL ? url(env.REDIS_URL, 'REDIS_URL', ['redis:', 'rediss:'], problems) : undefined;
  const logLevel = oneOf(env.LOG_LEVEL, 'LOG_LEVEL', LOG_LEVELS, 'info', problems);

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({ port, host: env.HOST || undefined, database, redisUrl, logLevel });
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
