import fc from 'fast-check';
import { bodyText } from './rest.js';

/** Bytes fetch refuses to send: control characters, bare CR or LF, obs-fold, non-ASCII. */
const rawValue = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom('\u0001', 'a\rb', 'a\nb', ' \t', 'é', '\u00ff\u00fe', 'x'.repeat(20_000), '\r\n folded', ''),
);

/** A request target: real and odd paths, absolute and asterisk forms, and broken percent-encoding. */
const target = fc.oneof(
  fc.constantFrom('/v1/pets', '/v1/pets/1', '/v1/store/orders', '/v1/store/orders/1', '/graphql', '/healthz', '*', 'http://example.com/v1/pets', '//v1/pets', '/v1/pets?%', '/v1/pets/%E0%A4%A', '/v1/pets/%00',
    '/v1/pets?limit=1&limit=2', '/v1/pets/../../etc/passwd', '/v1/pets#frag', `/${'a'.repeat(9_000)}`, '/v1/pets/\u00e9'),
  fc.string({ maxLength: 20 }).map((s) => `/v1/pets/${s}`),
);

/** One HTTP/1.1 request as raw text, its framing perhaps inconsistent (the server must still answer or close). */
export const rawRequest = (validKey: string) => fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'HEAD', 'DELETE', 'get', 'PO ST', 'CONNECT', 'TRACE', ''),
  target,
  version: fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1', ''),
  authorization: fc.oneof(fc.constant(`Bearer ${validKey}`), rawValue.map((v) => `Bearer ${v}`), fc.constant(undefined)),
  contentType: fc.oneof(fc.constantFrom('application/json', 'text/plain', undefined), rawValue),
  requestId: fc.oneof(rawValue, fc.constant(undefined)),
  forwardedFor: fc.oneof(rawValue, fc.constant(undefined)),
  body: bodyText,
  /** How the declared length relates to the body sent: never longer (the server would rightly wait for the rest). */
  framing: fc.constantFrom('exact', 'short', 'none', 'two-lengths', 'chunked-and-length', 'bad-length'),
}).map((r) => {
  const body = Buffer.from(r.body);
  const lines = [`${r.method} ${r.target} ${r.version}`.trim(), 'Host: 127.0.0.1', 'Connection: close'];
  if (r.authorization !== undefined) lines.push(`Authorization: ${r.authorization}`);
  if (r.contentType !== undefined) lines.push(`Content-Type: ${r.contentType}`);
  if (r.requestId !== undefined) lines.push(`X-Request-Id: ${r.requestId}`);
  if (r.forwardedFor !== undefined) lines.push(`X-Forwarded-For: ${r.forwardedFor}`);
  const length = { exact: body.length, short: Math.floor(body.length / 2), none: undefined, 'two-lengths': body.length, 'chunked-and-length': body.length, 'bad-length': undefined }[r.framing];
  if (length !== undefined) lines.push(`Content-Length: ${length}`);
  if (r.framing === 'two-lengths') lines.push(`Content-Length: ${length! + 1}`);
  if (r.framing === 'chunked-and-length') lines.push('Transfer-Encoding: chunked');
  if (r.framing === 'bad-length') lines.push('Content-Length: -1');
  return { ...r, text: `${lines.join('\r\n')}\r\n\r\n${r.framing === 'none' ? '' : body.toString('latin1')}` };
});
