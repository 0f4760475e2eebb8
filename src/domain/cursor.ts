import { createHmac, timingSafeEqual } from 'node:crypto';
import { isSafeId } from './ids.js';
import { appError } from '../errors.js';

/** Which list a cursor walks, and with which filter: a cursor is only good for the list it came from. */
export interface PageOf {
  readonly list: 'pets' | 'orders';
  readonly status: string | undefined;
}

/** A position in a list: the id of the last record of the previous page. */
export interface Cursors {
  make(page: PageOf, afterId: number): string;
  /** The id to continue after; a 400 that says why for a forged, corrupt or mismatched cursor. */
  read(page: PageOf, cursor: string): number;
}

/** Longer than any cursor the service makes: anything past it is refused before it is decoded. */
export const CURSOR_MAX_LENGTH = 256;

const MAC_BYTES = 16;
/** Cursors remembered: the first pages of the usual lists and filters are asked for again and again. */
const MADE_KEPT = 512;

/**
 * Opaque cursors: `base64url(JSON) . base64url(HMAC-SHA256)`, signed with a secret every instance shares
 * (service_secrets), so any instance takes another's cursor and none takes a forged one.
 */
export function createCursors(secret: string): Cursors {
  const mac = (payload: string) => createHmac('sha256', secret).update(payload).digest().subarray(0, MAC_BYTES);
  const filterOf = (page: PageOf) => (page.status ? `status "${page.status}"` : 'no filter');
  // A cursor depends only on its page: signing it again (JSON, base64, HMAC) would give the same string.
  const made = new Map<string, string>();
  return {
    make({ list, status }, afterId) {
      const page = `${list} ${status} ${afterId}`;
      let cursor = made.get(page);
      if (cursor === undefined) {
        const payload = Buffer.from(JSON.stringify({ l: list, s: status ?? null, a: afterId })).toString('base64url');
        cursor = `${payload}.${mac(payload).toString('base64url')}`;
        if (made.size >= MADE_KEPT) made.delete(made.keys().next().value!);
        made.set(page, cursor);
      }
      return cursor;
    },
    read(page, cursor) {
      const [payload = '', signature = '', extra] = cursor.split('.');
      const given = Buffer.from(signature, 'base64url');
      if (extra !== undefined || !payload || given.length !== MAC_BYTES) {
        throw appError('BAD_REQUEST', '"cursor" is malformed: pass the cursor of a Link header or of pageInfo.endCursor as it came');
      }
      if (!timingSafeEqual(given, mac(payload))) throw appError('BAD_REQUEST', '"cursor" was not issued by this service');
      let decoded: { l?: unknown; s?: unknown; a?: unknown };
      try {
        decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw appError('BAD_REQUEST', '"cursor" is malformed');
      }
      if (!isSafeId(decoded.a)) throw appError('BAD_REQUEST', '"cursor" is malformed');
      const made: PageOf = { list: decoded.l as PageOf['list'], status: (decoded.s as string | null) ?? undefined };
      if (made.list !== page.list) {
        throw appError('BAD_REQUEST', `"cursor" belongs to the list of ${made.list}, not of ${page.list}`);
      }
      if (made.status !== page.status) {
        throw appError('BAD_REQUEST', `"cursor" was made for ${filterOf(made)}, not ${filterOf(page)}: keep the filter, or start again without a cursor`);
      }
      return decoded.a;
    },
  };
}
