import { hash } from 'node:crypto';

/**
 * A strong entity tag (RFC 9110, 8.8.3) of a representation: a digest of its media type and its bytes,
 * so it changes exactly when the answer does, on any instance, with nothing stored. SHA-1 for speed: it
 * tells answers apart, it is not a secret.
 */
export function entityTag(contentType: string | null, body: string | Uint8Array): string {
  const digest = hash('sha1', typeof body === 'string' ? `${contentType ?? ''}\n${body}` : Buffer.concat([Buffer.from(`${contentType ?? ''}\n`), body]), 'base64url');
  return `"${digest}"`;
}

/**
 * Whether If-None-Match names the tag: `*`, or a list of tags compared weakly (RFC 9110, 13.1.2: a
 * `W/` prefix is ignored). A malformed field matches nothing, and the full answer goes out.
 */
export function noneMatch(field: string, tag: string): boolean {
  if (field.trim() === '*') return true;
  for (const part of field.split(',')) {
    const candidate = part.trim();
    if ((candidate.startsWith('W/') ? candidate.slice(2) : candidate) === tag) return true;
  }
  return false;
}

/** A GET (or HEAD) that sends a validator: its points wait until its answer is known (a 304 costs none). */
export const isConditionalRead = (request: Request): boolean =>
  (request.method === 'GET' || request.method === 'HEAD') && request.headers.has('if-none-match');
