import fc from 'fast-check';
import { EVENT_TYPES } from '../../../src/domain/events.js';
import { deepJson, wire } from './deep.js';

const STATUSES = ['available', 'pending', 'sold', 'placed', 'approved', 'delivered', 'cancelled'];

/** Text that looks like what a careless or hostile client sends: empty, huge, unicode, control characters. */
export const oddText = fc.oneof(
  fc.string(), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom('', ' ', '\u0000', '\ud800', '🐈', '\u202e', 'null', '0'),
  fc.string({ minLength: 150, maxLength: 400 }),
);

const oddNumber = fc.oneof(
  fc.integer(), fc.double(), fc.constantFrom(0, -1, 1, 2 ** 31, 2 ** 53, 2 ** 53 + 2, 1e308, -0, 9007199254740991),
);

/** Any JSON value, shallow, or deep past the service's nesting limit (write it with wire()). */
export const anyJson = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }) }, { weight: 3, arbitrary: fc.constantFrom({}, [], null, true, 'x') },
  { weight: 1, arbitrary: deepJson },
);

/** A NewPet as the spec has it, then perhaps broken one field at a time. */
export const petBody = fc.record({
  name: fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), oddText, oddNumber, fc.constant(null)),
  categoryId: fc.oneof(fc.integer({ min: 1, max: 1000 }), oddNumber, oddText, fc.constant(null)),
  status: fc.oneof(fc.constantFrom(...STATUSES), oddText, fc.constant(null)),
  extra: anyJson,
}, { requiredKeys: [] }).map(({ extra, ...pet }) => (extra === undefined ? pet : { ...pet, [String(Object.keys(pet).length)]: extra }));

/** A NewOrder, an order change or a pet change, then perhaps broken. */
export const storeBody = fc.record({
  petId: fc.oneof(fc.integer({ min: 1, max: 50 }), oddNumber, oddText, fc.constant(null)),
  status: fc.oneof(fc.constantFrom(...STATUSES), oddText, fc.constant(null)),
  name: fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), oddText, fc.constant(null)),
  categoryId: fc.oneof(fc.integer({ min: 1, max: 1000 }), oddNumber, fc.constant(null)),
  extra: anyJson,
}, { requiredKeys: [] }).map(({ extra, ...body }) => (extra === undefined ? body : { ...body, [String(Object.keys(body).length)]: extra }));

/** Percent-encoding as a client does it (a lone surrogate becomes U+FFFD first, as fetch would). */
const encode = (text: string) => encodeURIComponent(text.toWellFormed());

/** A path under the API: the real ones, and their mutations. */
export const apiPath = fc.oneof(
  fc.constantFrom('/v1/pets', '/v1/pets/1', '/v1/pets/', '/v1/pets//1', '/v1//pets', '/v1/pets/1/', '/v1', '/v1/', '/graphql', '/'),
  fc.constantFrom('/v1/store/orders', '/v1/store/orders/1', '/v1/store', '/v1/store/', '/v1/store/orders/', '/v1/store//orders', '/v1/pets/2'),
  fc.constantFrom('/v1/events', '/v1/events/', '/v1/events/1', '/v1//events', '/v1/event'),
  fc.constantFrom('/v1/webhooks', '/v1/webhooks/1', '/v1/webhooks/1/test', '/v1/webhooks/1/deliveries', '/v1/webhooks/1/deliveries/1/redeliver',
    '/v1/webhooks/0', '/v1/webhooks/1/deliveries/x/redeliver', '/v1/webhooks/1/test/', '/v1/webhooks//test'),
  fc.tuple(fc.constantFrom('/v1/pets/', '/v1/store/orders/', '/v1/', '/'), fc.oneof(
    oddNumber.map(String), oddText.map(encode), fc.constantFrom('%', '%zz', '%00', '..', '../..', '%2e%2e', '%2F', '1e3', '0x10', ' 1', '-1', '01', '1.0'),
  )).map(([base, tail]) => base + tail),
);

/** A query string: the real parameters with odd values, repeated, or unknown ones. */
export const queryString = fc.array(fc.tuple(
  fc.constantFrom('limit', 'status', 'cursor', 'id', 'offset', 'limit[]', 'status[0]', '', 'x', '__proto__', 'constructor', 'after', 'type', 'type[]'),
  fc.oneof(oddNumber.map(String), oddText, fc.constantFrom(...STATUSES, ...EVENT_TYPES, 'pet.*', 'PET_CREATED'),
    fc.constantFrom('%', '%zz', '', '100', '101', '0', '1', '3', 'eyJsIjoicGV0cyIsInMiOm51bGwsImEiOjJ9.-0PmWNJ1JjL5fmSpJcrIfQ', 'a.b', '.')),
), { maxLength: 4 }).map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${/%/.test(v) ? v : encode(v)}`).join('&')}`));

/** A webhook endpoint or its change, then perhaps broken: URLs aimed at private and odd places among them. */
export const webhookBody = fc.record({
  url: fc.oneof(fc.constantFrom('https://example.com/hooks', 'http://127.0.0.1:1/', 'https://169.254.169.254/', 'https://[::1]/', 'https://10.0.0.1/',
    'file:///etc/passwd', 'gopher://x', 'https://u:p@example.com/', 'https://example.com/#f', 'https://'), oddText, oddNumber, fc.constant(null)),
  types: fc.oneof(fc.subarray(['pet.created', 'pet.updated', 'order.created']), fc.array(oddText, { maxLength: 3 }), anyJson),
  enabled: fc.oneof(fc.boolean(), oddText, fc.constant(null)),
  extra: anyJson,
}, { requiredKeys: [] }).map(({ extra, ...body }) => (extra === undefined ? body : { ...body, [String(Object.keys(body).length)]: extra }));

/** A body as bytes on the wire: JSON of a pet or of anything, or not JSON at all. */
export const bodyText = fc.oneof(
  { weight: 4, arbitrary: petBody.map(wire) },
  { weight: 3, arbitrary: storeBody.map(wire) },
  { weight: 2, arbitrary: webhookBody.map(wire) },
  { weight: 1, arbitrary: anyJson.map(wire) },
  { weight: 1, arbitrary: fc.oneof(oddText, fc.constantFrom('{', '{"name":', '[1,', '{"name":"a","categoryId":1}garbage', '\u0000', 'null')) },
);
