/**
 * An OpenID provider for benchmarks: the tests' own (test/support/oidc-issuer.ts) on a loopback port,
 * printing the settings that make a service take its tokens and one token good for TTL_SECONDS (3600),
 * then staying up until it is stopped.
 *   npx tsx test/bench/token-issuer.ts     prints JWT_ISSUERS=…, JWT_AUDIENCE=…, TOKEN=… (eval them)
 * Give the service JWT_PLAN=enterprise with JWT_PER_MINUTE and JWT_PER_DAY past the bench's rates, as
 * the bench's key has, so that token and key meet the same limits.
 */
import { startIssuer } from '../support/oidc-issuer.js';

const ttl = Number(process.env.TTL_SECONDS ?? 3_600);
const issuer = await startIssuer({ accessTokenTtlSeconds: ttl });
console.log(`JWT_ISSUERS=${issuer.issuer}`);
console.log(`JWT_AUDIENCE=${issuer.audience}`);
console.log(`TOKEN=${await issuer.token('app-1', { scope: 'pets:read pets:write orders:read orders:write webhooks' })}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => { void issuer.close().then(() => process.exit(0)); });
