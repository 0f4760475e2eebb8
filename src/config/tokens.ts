import { settingsNeeding, settingsReader } from '../settings/declarations.js';
import { isTrustedKeySource } from '../settings/read.js';
import type { TokenConfig } from './types.js';

const MAX_ISSUERS = 8;

/**
 * Access tokens, when JWT_ISSUERS names providers; their other settings are refused without it. An issuer
 * is kept exactly as written: it is compared with each token's `iss`, byte for byte (Auth0's ends in `/`).
 */
export function tokenConfig(env: NodeJS.ProcessEnv, problems: string[]): TokenConfig | undefined {
  if (!env.JWT_ISSUERS) {
    const orphans = settingsNeeding('JWT_ISSUERS').filter((name) => env[name]);
    if (orphans.length > 0) problems.push(`${orphans.join(', ')} ${orphans.length > 1 ? 'are' : 'is'} set without JWT_ISSUERS`);
    return undefined;
  }
  const issuers = [...new Set(env.JWT_ISSUERS.split(',').map((item) => item.trim()))];
  if (issuers.length > MAX_ISSUERS || issuers.some((item) => !item)) {
    problems.push(`JWT_ISSUERS must be 1 to ${MAX_ISSUERS} issuer URLs, separated by commas`);
  }
  for (const issuer of issuers.filter(Boolean)) {
    let parsed: URL;
    try {
      parsed = new URL(issuer);
    } catch {
      problems.push(`JWT_ISSUERS: "${issuer}" is not a URL`);
      continue;
    }
    if (!isTrustedKeySource(parsed)) {
      problems.push(`JWT_ISSUERS: "${issuer}" must use https:// (http:// only on loopback, for a provider on this machine)`);
    }
    if (parsed.search || parsed.hash || parsed.username || parsed.password) {
      problems.push(`JWT_ISSUERS: "${issuer}" must be an issuer URL without query, fragment or credentials`);
    }
  }
  const get = settingsReader(env, problems);
  const audience = get('JWT_AUDIENCE');
  if (!audience) problems.push('JWT_AUDIENCE is required with JWT_ISSUERS: a token made for another API must not be taken here');
  const plan = get('JWT_PLAN');
  const perMinute = get('JWT_PER_MINUTE');
  const perDay = get('JWT_PER_DAY');
  if (plan === 'enterprise' && (perMinute === 0 || perDay === 0)) {
    problems.push('JWT_PLAN=enterprise needs JWT_PER_MINUTE and JWT_PER_DAY: the limits each subject gets');
  }
  if (plan !== 'enterprise' && (env.JWT_PER_MINUTE || env.JWT_PER_DAY)) {
    problems.push(`JWT_PER_MINUTE and JWT_PER_DAY are for JWT_PLAN=enterprise; the ${plan} plan has its own limits`);
  }
  return {
    issuers,
    audience: audience ?? '',
    plan, perMinute, perDay,
    scopeClaim: get('JWT_SCOPE_CLAIM') ?? 'scope',
    scopePrefix: get('JWT_SCOPE_PREFIX') ?? '',
    leewaySeconds: get('JWT_CLOCK_LEEWAY_SECONDS'),
    refreshSeconds: get('JWT_KEYS_REFRESH_SECONDS'),
    maxStaleSeconds: get('JWT_KEYS_MAX_STALE_SECONDS'),
  };
}
