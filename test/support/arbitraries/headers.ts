import fc from 'fast-check';
import { oddText } from './rest.js';

/** Header values fetch would send: visible ASCII, spaces, and Latin-1. */
const headerValue = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 80 }),
  fc.constantFrom('', ' ', 'ÿ', 'a'.repeat(2_000)),
);

/** The headers a client chooses, each perhaps absent, valid, malformed or hostile. */
export const clientHeaders = (validKey: string, restrictedKey?: string) => fc.record({
  authorization: fc.oneof(
    fc.constant(`Bearer ${validKey}`), ...(restrictedKey ? [fc.constant(`Bearer ${restrictedKey}`)] : []), fc.constantFrom('Bearer', 'Bearer ', 'Basic abc', `bearer ${validKey}`, `Bearer  ${validKey}`, `Bearer ${validKey}x`, 'Bearer ask_'),
    headerValue.map((v) => `Bearer ${v}`), headerValue,
  ),
  'content-type': fc.oneof(
    fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'text/plain', 'application/graphql-response+json',
      'application/x-www-form-urlencoded', 'multipart/form-data', 'application/JSON', 'application/json;', '*/*', 'application/graphql'),
    headerValue,
  ),
  'x-request-id': headerValue,
  'x-forwarded-for': fc.oneof(fc.ipV4(), fc.ipV6(), headerValue, fc.constantFrom('1.2.3.4, 5.6.7.8', 'unknown', '')),
  accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/graphql-response+json', 'text/plain', 'image/png',
    'application/problem+json', 'application/json;q=0.5, application/problem+json', 'application/problem+json;q=0', 'APPLICATION/PROBLEM+JSON'),
  // A few repeated keys, so retries, reuses with other bodies and replays happen.
  'idempotency-key': fc.oneof(fc.constantFrom('retry-1', 'retry-2', 'retry-3'), headerValue),
  'last-event-id': fc.oneof(fc.constantFrom('1', '0', '01', '9007199254740992', ' 2 ', 'abc'), headerValue),
  // Validators: a list, a weak one, any, a tag of the right shape that names nothing, and junk.
  'if-none-match': fc.oneof(fc.constantFrom('*', '"x"', 'W/"x"', '"a", "b"', '""', 'W/', ',,', '"4xlFqk-aPqncR5nesFBEM6SLZ4c"'), headerValue),
}, { requiredKeys: [] });

export { oddText };
