import { generateKeyPair, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWK } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { startIssuer, type IssuerAlg, type IssuerOptions, type TestIssuer } from '../support/oidc-issuer.js';

/**
 * The fixture the contract tests of JWT access tokens stand on: what it serves must be what a real
 * provider serves, or those tests prove nothing. Each test reads it as the service will, through
 * discovery and jose.
 */
const started: TestIssuer[] = [];
const start = async (options?: IssuerOptions) => {
  const issuer = await startIssuer(options);
  started.push(issuer);
  return issuer;
};
afterEach(async () => { await Promise.all(started.splice(0).map((issuer) => issuer.close())); });

const json = async <T>(url: string) => {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return await response.json() as T;
};
const discovery = (issuer: TestIssuer) =>
  json<{ issuer: string; jwks_uri: string; token_endpoint: string }>(`${issuer.issuer}/.well-known/openid-configuration`);
const kids = async (issuer: TestIssuer) =>
  (await json<{ keys: JWK[] }>((await discovery(issuer)).jwks_uri)).keys.map((key) => key.kid);
/** Verified as the service will: keys from the discovered JWKS, issuer, audience and alg pinned. */
const verify = async (issuer: TestIssuer, token: string, alg: IssuerAlg = 'ES256') => {
  const keys = createRemoteJWKSet(new URL((await discovery(issuer)).jwks_uri));
  return jwtVerify(token, keys, { issuer: issuer.issuer, audience: issuer.audience, algorithms: [alg], typ: 'at+jwt' });
};

describe('the test OpenID issuer', () => {
  it('publishes a discovery document naming itself exactly and its JWKS', async () => {
    const issuer = await start();
    expect(issuer.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const document = await discovery(issuer);
    expect(document.issuer).toBe(issuer.issuer);
    expect(document.jwks_uri).toBe(`${issuer.issuer}/jwks`);
    expect(document.token_endpoint).toBe(`${issuer.issuer}/token`);
    expect(await kids(issuer)).toEqual([issuer.kid]);
    // Public keys only.
    const [key] = (await json<{ keys: JWK[] }>(document.jwks_uri)).keys;
    expect(key).toMatchObject({ kid: issuer.kid, use: 'sig', alg: 'ES256', kty: 'EC' });
    expect(key).not.toHaveProperty('d');
  });

  it('issues RFC 9068 access tokens from its token endpoint that verify against its JWKS', async () => {
    const issuer = await start({ accessTokenTtlSeconds: 120 });
    const token = await issuer.token('app-1', { scope: 'pets:read' });
    const { payload, protectedHeader } = await verify(issuer, token);
    expect(protectedHeader).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: issuer.kid });
    expect(payload).toMatchObject({ iss: issuer.issuer, aud: 'https://api.animal-store.test', sub: 'app-1', client_id: 'app-1' });
    expect(String(payload.scope).split(' ')).toContain('pets:read');
    expect(typeof payload.jti).toBe('string');
    expect(payload.exp! - payload.iat!).toBe(120);
  });

  it('grants only the scopes asked for, and those the API knows', async () => {
    const issuer = await start();
    expect(decodeJwt(await issuer.token('app-2', { scope: 'pets:read orders:write' }))).toMatchObject({ sub: 'app-2', scope: 'pets:read orders:write' });
    expect(decodeJwt(await issuer.token('app-2', { scope: 'pets:read admin' })).scope).toBe('pets:read');
    expect(decodeJwt(await issuer.token('app-3')).scope).toBeUndefined();
  });

  it('authenticates clients: one it does not know gets no token', async () => {
    const issuer = await start({ clients: ['app-1'] });
    await expect(issuer.token('app-2')).rejects.toThrow(/401.*invalid_client/);
  });

  it.each(['ES256', 'RS256', 'PS256', 'EdDSA'] as const)('signs with %s when told to', async (alg) => {
    const issuer = await start({ alg, audience: 'https://other.test' });
    const { protectedHeader, payload } = await verify(issuer, await issuer.token('app-1'), alg);
    expect(protectedHeader.alg).toBe(alg);
    expect(payload.aud).toBe('https://other.test');
    expect((await verify(issuer, await issuer.sign({}), alg)).payload.sub).toBe('app-1');
  });

  it('adds the extra claims of a client', async () => {
    const issuer = await start({ extraClaims: (clientId) => ({ permissions: [`read:${clientId}`] }) });
    expect((await verify(issuer, await issuer.token('app-2'))).payload.permissions).toEqual(['read:app-2']);
    expect(decodeJwt(await issuer.sign({ sub: 'app-3' })).permissions).toEqual(['read:app-1']);
  });

  describe('sign', () => {
    it('makes a well-formed token by default, that verifies', async () => {
      const issuer = await start();
      const { payload, protectedHeader } = await verify(issuer, await issuer.sign({ scope: 'pets:write' }));
      expect(payload).toMatchObject({ iss: issuer.issuer, aud: issuer.audience, sub: 'app-1', client_id: 'app-1', scope: 'pets:write' });
      expect(protectedHeader).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: issuer.kid });
    });

    it('leaves out a claim given as undefined, and lays the header given over its own', async () => {
      const issuer = await start();
      const token = await issuer.sign({ sub: undefined, exp: 1 }, { header: { typ: 'JWT', jku: 'https://evil.test/jwks' } });
      expect(decodeJwt(token)).not.toHaveProperty('sub');
      expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', typ: 'JWT', kid: issuer.kid, jku: 'https://evil.test/jwks' });
      await expect(verify(issuer, token)).rejects.toThrow();
    });

    it('signs with a key the test owns, with another alg, with a crit header, or not at all', async () => {
      const issuer = await start();
      const { privateKey } = await generateKeyPair('ES256');
      const stranger = await issuer.sign({}, { key: privateKey, header: { kid: issuer.kid } });
      expect(decodeProtectedHeader(stranger).kid).toBe(issuer.kid);
      await expect(verify(issuer, stranger)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });

      const hmac = await issuer.sign({}, { key: new TextEncoder().encode('a shared secret of 32 bytes ....'), alg: 'HS256' });
      expect(decodeProtectedHeader(hmac)).toEqual({ alg: 'HS256', typ: 'at+jwt' });
      await expect(verify(issuer, hmac)).rejects.toThrow();

      const critical = await issuer.sign({}, { header: { crit: ['urn:test:unknown'], 'urn:test:unknown': true } });
      expect(decodeProtectedHeader(critical).crit).toEqual(['urn:test:unknown']);
      await expect(verify(issuer, critical)).rejects.toMatchObject({ code: 'ERR_JOSE_NOT_SUPPORTED' });

      const unsigned = await issuer.sign({}, { alg: 'none' });
      expect(unsigned.endsWith('.')).toBe(true);
      expect(decodeProtectedHeader(unsigned).alg).toBe('none');
      await expect(verify(issuer, unsigned)).rejects.toThrow();
    });
  });

  it('rotates: new tokens carry the new kid, both keys published, until the old one is retired', async () => {
    const issuer = await start();
    const old = issuer.kid;
    const before = await issuer.token('app-1');
    const kid = await issuer.rotate();
    expect(kid).not.toBe(old);
    expect(issuer.kid).toBe(kid);
    const after = await issuer.token('app-1');
    expect(decodeProtectedHeader(after).kid).toBe(kid);
    expect(decodeProtectedHeader(await issuer.sign({})).kid).toBe(kid);
    expect((await kids(issuer)).sort()).toEqual([old, kid].sort());
    await verify(issuer, before);
    await verify(issuer, after);

    await expect(issuer.retire(kid)).rejects.toThrow(/rotate/);
    await issuer.retire(old);
    expect(await kids(issuer)).toEqual([kid]);
    await verify(issuer, after);
    await expect(verify(issuer, before)).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
  });

  it('goes down as an outage does (connections refused, open ones cut) and comes back on the same address', async () => {
    const issuer = await start();
    const { jwks_uri: jwks } = await discovery(issuer); // leaves a kept-alive connection open
    await issuer.down();
    await issuer.down(); // twice is still down
    await expect(fetch(jwks)).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
    await expect(issuer.token('app-1')).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
    await issuer.up();
    await issuer.up();
    expect((await discovery(issuer)).issuer).toBe(issuer.issuer);
    await verify(issuer, await issuer.token('app-1'));
  });

  it('counts the fetches of its JWKS and discovery document, not its own token requests', async () => {
    const issuer = await start();
    expect(issuer.fetches).toEqual({ jwks: 0, discovery: 0 });
    await issuer.token('app-1');
    expect(issuer.fetches).toEqual({ jwks: 0, discovery: 0 });
    const { jwks_uri: jwks } = await discovery(issuer);
    await fetch(jwks);
    await fetch(`${jwks}?again`);
    expect(issuer.fetches).toEqual({ jwks: 2, discovery: 1 });
  });
});
