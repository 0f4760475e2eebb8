import { randomUUID, type KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base64url, CompactSign, exportJWK, generateKeyPair, type CompactJWSHeaderParameters, type JWK } from 'jose';
import type ProviderType from 'oidc-provider';

export type IssuerAlg = 'ES256' | 'RS256' | 'PS256' | 'EdDSA';

export interface TestIssuer {
  /** e.g. http://127.0.0.1:PORT, no trailing slash: exactly the `iss` its tokens carry. */
  readonly issuer: string;
  /** The resource (API identifier) its tokens are issued for: their `aud`. */
  readonly audience: string;
  /** A JWT access token from the provider's own token endpoint (client_credentials, client_secret_basic). */
  token(clientId: string, options?: { scope?: string }): Promise<string>;
  /**
   * A token the provider would never issue. `payload` is laid over the claims of a well-formed token
   * (iss, aud, sub and client_id of the first client, iat, exp, jti, extra claims): a claim given as
   * `undefined` is left out. The header is `{ alg, typ: 'at+jwt', kid }` with `options.header` laid over
   * it; signed with the current signing key unless `key` is given (then no kid unless the header names
   * one). `alg: 'none'` gives an unsigned token.
   */
  sign(
    payload: Record<string, unknown>,
    options?: { header?: Record<string, unknown>; key?: CryptoKey | KeyObject | Uint8Array; alg?: string },
  ): Promise<string>;
  /** Adds a signing key and signs new tokens with it; the old keys stay published. The new kid. */
  rotate(): Promise<string>;
  /** Stops publishing a key (never the current one: rotate first). */
  retire(kid: string): Promise<void>;
  /** The kid new tokens are signed with. */
  readonly kid: string;
  /** An outage: the port refuses connections (open ones are cut) until `up()`. */
  down(): Promise<void>;
  up(): Promise<void>;
  /** Requests for the JWKS and for the discovery document so far (the fixture's own requests are not counted). */
  readonly fetches: { readonly jwks: number; readonly discovery: number };
  close(): Promise<void>;
}

export interface IssuerOptions {
  audience?: string;
  alg?: IssuerAlg;
  clients?: string[];
  accessTokenTtlSeconds?: number;
  /** Claims added to every token of a client (e.g. an Auth0-style `permissions` array). */
  extraClaims?: (clientId: string) => Record<string, unknown>;
}

/** Every scope the API knows: what a resource server may grant. */
const SCOPES = 'pets:read pets:write orders:read orders:write webhooks openid';
// Fixed here (they are the library's defaults) so that the fixture can count and call them without discovery.
const ROUTES = { token: '/token', jwks: '/jwks' } as const;
const DISCOVERY = '/.well-known/openid-configuration';

/** A client's secret: the tests know the clients by id alone. */
export const clientSecret = (clientId: string) => `${clientId}-secret`;

let loading: Promise<typeof import('oidc-provider')> | undefined;
/**
 * oidc-provider warns as it is imported on a Node.js line it does not count as a supported LTS (20, and
 * 26 until it becomes one): advice for deployers, noise in a test run. Only that line is dropped, and
 * only while it loads.
 */
function loadProvider() {
  loading ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (!String(args[0]).includes('oidc-provider WARNING: Unsupported runtime')) warn.apply(console, args);
    };
    try {
      return await import('oidc-provider');
    } finally {
      console.warn = warn;
    }
  })();
  return loading;
}

/**
 * The provider's storage, one per issuer (kept across its rebuilds). Its own in-memory adapter would do
 * as well but warns once per instance, and every rotation makes an instance. JWT access tokens are never
 * stored: this holds next to nothing.
 */
class MemoryAdapter {
  constructor(private readonly model: string, private readonly store: Map<string, Record<string, unknown>>) {}
  private key(id: string) { return `${this.model}:${id}`; }
  async upsert(id: string, payload: Record<string, unknown>) { this.store.set(this.key(id), payload); }
  async find(id: string) { return this.store.get(this.key(id)); }
  async findByUid(uid: string) { return [...this.store.values()].find((payload) => payload.uid === uid); }
  async findByUserCode(code: string) { return [...this.store.values()].find((payload) => payload.userCode === code); }
  async consume(id: string) { const payload = await this.find(id); if (payload) payload.consumed = Math.floor(Date.now() / 1000); }
  async destroy(id: string) { this.store.delete(this.key(id)); }
  async revokeByGrantId(grantId: string) {
    for (const [key, payload] of this.store) if (payload.grantId === grantId) this.store.delete(key);
  }
}

interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  /** The private JWK the provider signs with (it publishes the public half). */
  readonly jwk: JWK;
}

async function newKey(alg: IssuerAlg): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  // Unique across issuers: a verifier that caches keys by kid must not mistake one issuer's for another's.
  const kid = randomUUID();
  return { kid, privateKey, jwk: { ...(await exportJWK(privateKey)), kid, use: 'sig', alg } };
}

/**
 * A real OpenID provider (oidc-provider, a certified implementation) on a loopback port, for the tests of
 * a service that verifies its RFC 9068 JWT access tokens: discovery, JWKS and a token endpoint for
 * client_credentials, with keys the test rotates and retires, and an outage it switches on and off.
 */
export async function startIssuer(options: IssuerOptions = {}): Promise<TestIssuer> {
  const {
    audience = 'https://api.animal-store.test',
    alg = 'ES256',
    clients = ['app-1', 'app-2', 'app-3'],
    accessTokenTtlSeconds = 600,
    extraClaims,
  } = options;
  const { default: Provider, errors } = await loadProvider();
  const keys: SigningKey[] = [await newKey(alg)];
  let current = keys[0]!;
  const fetches = { jwks: 0, discovery: 0 };
  const stored = new Map<string, Record<string, unknown>>();

  // The server outlives the provider: oidc-provider fixes its keys when it is made, so a rotation makes a
  // new one, answering on the same port.
  let handle: ReturnType<ProviderType['callback']> | undefined;
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://issuer').pathname;
    if (path === ROUTES.jwks) fetches.jwks += 1;
    else if (path === DISCOVERY) fetches.discovery += 1;
    handle!(request, response);
  });
  const listen = (port: number) => new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => { server.off('error', reject); resolve(); });
  });
  await listen(0);
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const resourceServer = () => ({
    scope: SCOPES,
    audience,
    accessTokenFormat: 'jwt',
    accessTokenTTL: accessTokenTtlSeconds,
    // By kid: with several keys of one alg published, the provider would otherwise take the first.
    jwt: { sign: { alg, kid: current.kid } },
  });
  const build = () => {
    const provider = new Provider(issuer, {
      adapter: (model: string) => new MemoryAdapter(model, stored),
      routes: ROUTES,
      clients: clients.map((clientId) => ({
        client_id: clientId,
        client_secret: clientSecret(clientId),
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
      })),
      jwks: { keys: keys.map((key) => key.jwk) },
      // Its default (RS256) must have a key of the issuer's, though no ID token is ever issued here.
      clientDefaults: { id_token_signed_response_alg: alg },
      features: {
        // On by default, with a warning: there is no end user here to log in.
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => audience,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string) => {
            if (resource !== audience) throw new errors.InvalidTarget();
            return resourceServer();
          },
        },
      },
      // A number, not the default function (which reads the same TTL but prints a notice on each call).
      ttl: { ClientCredentials: accessTokenTtlSeconds },
      extraTokenClaims: (_ctx: unknown, token: { clientId: string }) => extraClaims?.(token.clientId),
    });
    provider.silent = true;
    handle = provider.callback();
  };
  build();

  const down = async () => {
    if (!server.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Kept-alive connections would otherwise go on being answered.
    server.closeAllConnections();
    await closed;
  };

  return {
    issuer,
    audience,
    get kid() { return current.kid; },
    fetches,
    async token(clientId, { scope } = {}) {
      const body = new URLSearchParams({ grant_type: 'client_credentials' });
      if (scope !== undefined) body.set('scope', scope);
      const credentials = `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret(clientId))}`;
      const response = await fetch(`${issuer}${ROUTES.token}`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
        body,
      });
      const answer = await response.json() as { access_token?: string };
      if (!response.ok || !answer.access_token) throw new Error(`the token endpoint answered ${response.status}: ${JSON.stringify(answer)}`);
      return answer.access_token;
    },
    async sign(payload, { header = {}, key, alg: headerAlg = alg } = {}) {
      const now = Math.floor(Date.now() / 1000);
      const clientId = clients[0] ?? 'app-1';
      const claims = {
        iss: issuer, aud: audience, sub: clientId, client_id: clientId, iat: now, exp: now + accessTokenTtlSeconds,
        jti: randomUUID(), ...extraClaims?.(clientId), ...payload,
      };
      const protectedHeader: Record<string, unknown> = { alg: headerAlg, typ: 'at+jwt', ...(key ? {} : { kid: current.kid }), ...header };
      if (protectedHeader.alg === 'none') {
        const part = (value: object) => base64url.encode(JSON.stringify(value));
        return `${part(protectedHeader)}.${part(claims)}.`;
      }
      // jose refuses to sign a `crit` it does not know unless told the signer does: here the test means it.
      const { crit: names } = protectedHeader;
      const crit = Array.isArray(names) ? Object.fromEntries(names.map((name: unknown) => [String(name), true])) : undefined;
      return new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
        .setProtectedHeader(protectedHeader as CompactJWSHeaderParameters)
        .sign(key ?? current.privateKey, { crit });
    },
    async rotate() {
      current = await newKey(alg);
      keys.push(current);
      build();
      return current.kid;
    },
    async retire(kid) {
      if (kid === current.kid) throw new Error(`${kid} signs new tokens: rotate() before retiring it`);
      const index = keys.findIndex((key) => key.kid === kid);
      if (index < 0) throw new Error(`no published key ${kid}`);
      keys.splice(index, 1);
      build();
    },
    down,
    async up() {
      if (!server.listening) await listen(port);
    },
    close: down,
  };
}
