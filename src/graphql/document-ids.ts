import { hash } from 'node:crypto';
import { appError } from '../errors.js';

export const sha256Hex = (text: string): string => hash('sha256', text, 'hex');

const SHA256 = /^[0-9a-f]{64}$/;
/**
 * A manifest's ids are whatever its compiler hashed with (Codegen's client preset: sha1 or sha256 hex;
 * Relay: md5 by default): short printable names, never a document.
 */
const ID = /^[A-Za-z0-9_.-]{1,128}$/;
const PREFIXED = /^sha256:(.*)$/;

/**
 * The manifest key a `documentId` names: `sha256:<hex>` (the GraphQL-over-HTTP persisted documents
 * proposal) is looked up by its hex, a bare id as it is.
 */
export function documentKey(raw: unknown): string {
  if (typeof raw !== 'string') throw malformedId();
  const prefixed = PREFIXED.exec(raw);
  if (prefixed) {
    if (!SHA256.test(prefixed[1]!)) throw malformedId();
    return prefixed[1]!;
  }
  if (!ID.test(raw)) throw malformedId();
  return raw;
}

const malformedId = () =>
  appError('BAD_REQUEST', '"documentId" must be "sha256:" and 64 lowercase hex digits, or a document id of the manifest (1 to 128 letters, digits, "_", "-" or ".")');

/** A manifest's key, as a request will name it; `undefined` when it could never be one. */
export function manifestKey(raw: string): string | undefined {
  try { return documentKey(raw); } catch { return undefined; }
}

/** Whether a key claims to be a SHA-256, so that the text it names can be held to it. */
export const isSha256 = (key: string): boolean => SHA256.test(key);

/**
 * Apollo's automatic persisted queries: `extensions.persistedQuery` is `{version: 1, sha256Hash}`.
 * Undefined when the request does not use them.
 */
export function persistedQueryHash(extensions: Record<string, unknown> | undefined): string | undefined {
  const persisted = extensions?.persistedQuery;
  if (persisted === undefined) return undefined;
  const { version, sha256Hash } = (typeof persisted === 'object' && persisted !== null ? persisted : {}) as Record<string, unknown>;
  if (version !== 1 || typeof sha256Hash !== 'string' || !SHA256.test(sha256Hash)) {
    throw appError('BAD_REQUEST', '"extensions.persistedQuery" must be {"version": 1, "sha256Hash": "<64 lowercase hex digits>"}');
  }
  return sha256Hash;
}
