import type { JSONWebKeySet } from 'jose';
import { isTrustedKeySource } from '../../settings/read.js';

/** The longest a provider's metadata or keys may take to arrive, and the most they may weigh. */
const FETCH_TIMEOUT_MS = 5_000;
const MAX_DOCUMENT_BYTES = 512 * 1024;

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: 'application/json' } });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`${url} answered ${response.status}`);
  }
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_DOCUMENT_BYTES) {
    await response.body?.cancel();
    throw new Error(`${url} is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  }
  const text = await response.text();
  if (text.length > MAX_DOCUMENT_BYTES) throw new Error(`${url} is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  return JSON.parse(text);
}

/** Where the issuer's metadata is: OpenID discovery first, then RFC 8414's well-known place. */
function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  return [
    `${url.origin}${path}/.well-known/openid-configuration`,
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
  ];
}

/** Keys are only ever taken from where the issuer's own metadata says, over https (loopback aside). */
function checkedJwksUri(issuer: string, value: unknown): string {
  if (typeof value !== 'string') throw new Error(`${issuer}'s metadata names no jwks_uri`);
  if (!isTrustedKeySource(new URL(value))) {
    throw new Error(`${issuer}'s jwks_uri must use https://`);
  }
  return value;
}

/** The issuer's published keys, found through its metadata, whose `issuer` must be exactly the one trusted. */
export async function fetchIssuerKeys(issuer: string): Promise<JSONWebKeySet> {
  let lastError: unknown;
  for (const url of metadataUrls(issuer)) {
    let metadata: Record<string, unknown>;
    try {
      metadata = await getJson(url) as Record<string, unknown>;
    } catch (error) {
      lastError = error;
      continue;
    }
    if (metadata?.issuer !== issuer) throw new Error(`${url} is for issuer ${JSON.stringify(metadata?.issuer)}, not ${issuer}`);
    const jwks = await getJson(checkedJwksUri(issuer, metadata.jwks_uri)) as JSONWebKeySet;
    if (!Array.isArray(jwks?.keys)) throw new Error(`${issuer}'s jwks_uri holds no key set`);
    return jwks;
  }
  throw lastError;
}
