import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const problemsOf = (env: Record<string, string>): readonly string[] => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe('loadConfig: access tokens', () => {
  it('is off without JWT_ISSUERS', () => {
    expect(loadConfig({}).tokens).toBeUndefined();
  });

  it('reads the issuers exactly as written, with the defaults', () => {
    const tokens = loadConfig({ JWT_ISSUERS: 'https://tenant.auth0.com/, http://127.0.0.1:8080/realms/pets', JWT_AUDIENCE: 'https://api.example' }).tokens;
    expect(tokens).toEqual({
      issuers: ['https://tenant.auth0.com/', 'http://127.0.0.1:8080/realms/pets'], audience: 'https://api.example', plan: 'free', perMinute: 0, perDay: 0,
      scopeClaim: 'scope', scopePrefix: '', leewaySeconds: 30, refreshSeconds: 300, maxStaleSeconds: 3_600,
    });
  });

  it('takes an enterprise plan with limits of its own', () => {
    const tokens = loadConfig({ JWT_ISSUERS: 'https://idp.example.com', JWT_AUDIENCE: 'a', JWT_PLAN: 'enterprise', JWT_PER_MINUTE: '5000', JWT_PER_DAY: '900000' }).tokens;
    expect(tokens).toMatchObject({ plan: 'enterprise', perMinute: 5_000, perDay: 900_000 });
  });

  it.each([
    ['plain http to another host', { JWT_ISSUERS: 'http://idp.example.com', JWT_AUDIENCE: 'a' }, /must use https:\/\//],
    ['no audience', { JWT_ISSUERS: 'https://idp.example.com' }, /JWT_AUDIENCE is required/],
    ['not a URL', { JWT_ISSUERS: 'idp.example.com', JWT_AUDIENCE: 'a' }, /is not a URL/],
    ['a query', { JWT_ISSUERS: 'https://idp.example.com/?x=1', JWT_AUDIENCE: 'a' }, /without query/],
    ['an empty entry', { JWT_ISSUERS: 'https://a.example,,https://b.example', JWT_AUDIENCE: 'a' }, /1 to 8 issuer URLs/],
    ['nine issuers', { JWT_ISSUERS: Array.from({ length: 9 }, (_, i) => `https://i${i}.example`).join(','), JWT_AUDIENCE: 'a' }, /1 to 8/],
    ['a leeway over 60 s', { JWT_ISSUERS: 'https://idp.example.com', JWT_AUDIENCE: 'a', JWT_CLOCK_LEEWAY_SECONDS: '61' }, /JWT_CLOCK_LEEWAY_SECONDS/],
    ['the enterprise plan without limits', { JWT_ISSUERS: 'https://idp.example.com', JWT_AUDIENCE: 'a', JWT_PLAN: 'enterprise' }, /needs JWT_PER_MINUTE and JWT_PER_DAY/],
    ['limits on another plan', { JWT_ISSUERS: 'https://idp.example.com', JWT_AUDIENCE: 'a', JWT_PLAN: 'pro', JWT_PER_MINUTE: '5' }, /are for JWT_PLAN=enterprise/],
    ['a token setting without issuers', { JWT_AUDIENCE: 'a', JWT_PLAN: 'pro' }, /JWT_AUDIENCE, JWT_PLAN are set without JWT_ISSUERS/],
  ])('refuses %s, by name', (_, env, problem) => {
    expect(problemsOf(env).join('\n')).toMatch(problem);
  });
});
