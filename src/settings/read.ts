/**
 * The readers of setting values: each takes the raw text (undefined or empty: not given, the default
 * applies), pushes a problem naming the setting when the text is refused, and returns the value.
 */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** `host:port,host:port` (a port may be left out; IPv6 in brackets: `[::1]:7000`). */
export function hostPorts(raw: string, name: string, defaultPort: number, problems: string[]): HostPort[] {
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
export function booleanSetting(raw: string | undefined, name: string, problems: string[]): boolean | undefined {
  const value = parseBoolean(raw);
  if (value === null) problems.push(`${name} must be ${BOOLEAN_WORDS}, got "${raw}"`);
  return value ?? undefined;
}

export function bool(raw: string | undefined, name: string, fallback: boolean, problems: string[]): boolean {
  return booleanSetting(raw, name, problems) ?? fallback;
}

/**
 * OpenTelemetry's own rule for its boolean variables (the specification's "Boolean value"): only `true`,
 * in any case, is true, and an SDK must not read more spellings as true, so `1`, `yes` or `on` are not
 * taken here either: every OpenTelemetry SDK beside this service would read them as false. Where the
 * specification falls back to false with a warning, startup stops instead, naming the setting: a switch
 * meant to turn traces off must not leave them on unnoticed.
 */
export function otelBoolean(raw: string | undefined, name: string, problems: string[]): boolean {
  if (raw === undefined || raw === '') return false;
  const word = raw.toLowerCase();
  if (word === 'true' || word === 'false') return word === 'true';
  problems.push(`${name} must be true or false, in any case (OpenTelemetry's rule: its SDKs read any other value, 1 and yes included, as false), got "${raw}"`);
  return false;
}

export function origins(raw: string, problems: string[]): string[] {
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
export function trustProxy(raw: string | undefined, problems: string[]): number {
  const trimmed = raw?.trim() ?? '';
  if (/^\d+$/.test(trimmed)) return intInRange(trimmed, 'TRUST_PROXY (a number of proxy hops)', 0, 0, 10, problems);
  const value = parseBoolean(raw);
  if (value === null) problems.push(`TRUST_PROXY must be ${BOOLEAN_WORDS}, or a number of proxy hops from 0 to 10, got "${raw}"`);
  return value ? 1 : 0;
}

export function intInRange(
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
export function fraction(raw: string | undefined, name: string, fallback: number, problems: string[]): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (/^(?:\d+(?:\.\d+)?|\.\d+)$/.test(raw) && value > 0 && value <= 1) return value;
  problems.push(`${name} must be a decimal fraction greater than 0 and at most 1 (0.1: one in ten), got "${raw}"`);
  return fallback;
}

export function url(raw: string, name: string, protocols: readonly string[], problems: string[]): string {
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

export function oneOf<T extends string>(
  raw: string | undefined, name: string, allowed: readonly T[], fallback: T, problems: string[],
): T {
  if (raw === undefined || raw === '') return fallback;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return fallback;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Where keys that sign credentials may come from: https, or plain http to this machine (a provider beside
 * the service, a test's). Over plain http elsewhere they could be swapped on the way, and with them every signature.
 */
export const isTrustedKeySource = (url: URL): boolean =>
  url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
