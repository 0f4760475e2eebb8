import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** Every key starts with this, so secret scanners (and people) can tell one at a glance. */
export const KEY_PREFIX = 'ask_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 43 base62 characters: 256 random bits, selectable with a double click (no - or _ inside). */
const SECRET_LENGTH = 43;
/** New keys end with a checksum of the rest (like GitHub's): CRC32 in 6 base62 characters. */
const CHECKSUM_LENGTH = 6;
const DISPLAY_LENGTH = KEY_PREFIX.length + 8;
/** Keys made before checksums (43 characters) keep working; new ones have 49. */
const KEY_SHAPE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH}}(?:[0-9A-Za-z]{${CHECKSUM_LENGTH}})?$`);

function checksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i += 1) {
    out = ALPHABET[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

export function generateKey(): string {
  let secret = '';
  while (secret.length < SECRET_LENGTH) {
    for (const byte of randomBytes(64)) {
      // 248 = 4 × 62: taking only bytes below it keeps every character equally likely.
      if (byte < 248 && secret.length < SECRET_LENGTH) secret += ALPHABET[byte % 62];
    }
  }
  return KEY_PREFIX + secret + checksum(KEY_PREFIX + secret);
}

/**
 * Whether a key's checksum holds: a mistyped or made-up key is refused without a look-up. A key from
 * before checksums has none to check.
 */
export function checksumHolds(key: string): boolean {
  const bodyLength = KEY_PREFIX.length + SECRET_LENGTH;
  if (key.length === bodyLength) return true;
  return checksum(key.slice(0, bodyLength)) === key.slice(bodyLength);
}

/** Keys carry 256 random bits, so a fast hash is as safe as a slow one and costs nothing per request. */
export function hashKey(key: string): string {
  // The one-shot hash: a third of createHash's cost for a key's few bytes (no Hash object to build).
  return hash('sha256', key, 'hex');
}

/** The part of a key that is safe to show: enough to tell keys apart in a list or a log. */
export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_LENGTH);
}

export function looksLikeKey(value: string): boolean {
  return KEY_SHAPE.test(value);
}

/** `Authorization: Bearer <key>`, the scheme in any case; undefined when there is none to try. */
export function bearerToken(header: string | null): string | undefined {
  const match = /^bearer +(\S+) *$/i.exec(header ?? '');
  return match?.[1];
}
