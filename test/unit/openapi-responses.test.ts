import type { OpenAPIV3 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { openApiJson } from '../../src/documents.js';
import { schema } from '../../src/schema/index.js';
import { responseChecker, type Answer } from '../support/openapi-responses.js';

/** The checker the contract tests judge every /v1 answer with, on the document the service serves. */
const check = responseChecker(JSON.parse(openApiJson(schema)) as OpenAPIV3.Document);

const COUNTED = {
  'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '1795000000',
  'ratelimit-policy': '"minute";q=60;w=60', ratelimit: '"minute";r=59;t=60', 'x-request-id': 'r1',
};
const PET = { id: 1, name: 'Rex', categoryId: 3, status: 'available' };

function answer(method: string, path: string, status: number, body?: unknown, headers: Record<string, string> = {}, type = 'application/json'): Answer {
  const text = body === undefined ? '' : JSON.stringify(body);
  // A read's answer carries its validator.
  const validator: Record<string, string> = (method === 'GET' || method === 'HEAD') && status === 200 ? { etag: '"4xlFqk-aPqncR5nesFBEM6SLZ4c"' } : {};
  return {
    method, url: `http://127.0.0.1:1${path}`, status, text,
    headers: new Headers({ ...COUNTED, ...validator, ...(body === undefined ? {} : { 'content-type': `${type}; charset=utf-8` }), ...headers }),
  };
}

describe('the response checker', () => {
  it('passes an answer the document describes', () => {
    expect(check(answer('GET', '/v1/pets?limit=1', 200, [PET]))).toEqual({ operation: 'listPets 200', problems: [] });
    expect(check(answer('GET', '/v1/pets/abc', 400, { code: 'BAD_REQUEST', message: 'Invalid "petId"', status: 400 },
      { deprecation: '@1763683200', sunset: 'Thu, 05 Dec 2030 00:00:00 GMT' }))).toEqual({ operation: 'getPet 400', problems: [] });
  });

  it('leaves unjudged what the document has no operation for: an unknown path, a method the path lacks', () => {
    expect(check(answer('GET', '/v1/nothing', 404, { code: 'NOT_FOUND', message: 'No route', status: 404 }))).toEqual({ problems: [] });
    expect(check(answer('PUT', '/v1/pets', 405, { code: 'METHOD_NOT_ALLOWED', message: 'PUT', status: 405 }))).toEqual({ problems: [] });
  });

  it('refuses a status the operation does not list', () => {
    expect(check(answer('GET', '/v1/pets', 418, { code: 'TEAPOT', message: 'no', status: 418 })).problems)
      .toEqual([expect.stringMatching(/^status 418 is not documented \(documented: 200, 304, 400, /)]);
    expect(check(answer('POST', '/v1/pets', 304)).problems).toEqual([expect.stringMatching(/^status 304 is not documented \(documented: 201, 400, /)]);
  });

  it('refuses a missing required header and a documented header of the wrong shape', () => {
    const { 'x-ratelimit-limit': _, ...withoutLimit } = COUNTED;
    const missing = { ...answer('GET', '/v1/pets', 200, [PET]), headers: new Headers({ ...withoutLimit, etag: '"abc"', 'content-type': 'application/json' }) };
    expect(check(missing).problems).toEqual(['header X-RateLimit-Limit is required and missing']);
    expect(check(answer('GET', '/v1/pets', 200, [PET], { 'x-ratelimit-remaining': 'lots' })).problems)
      .toEqual([expect.stringMatching(/^header X-RateLimit-Remaining: "lots" value must be integer/)]);
    expect(check(answer('POST', '/v1/pets', 201, PET)).problems).toEqual(['header Location is required and missing']);
    expect(check(answer('GET', '/v1/pets', 401, { code: 'UNAUTHENTICATED', message: 'No key', status: 401 })).problems)
      .toEqual(['header WWW-Authenticate is required and missing']);
    expect(check(answer('GET', '/v1/pets', 200, [PET], { etag: 'W/"weak"' })).problems).toEqual([expect.stringMatching(/^header ETag: "W\/\\"weak\\"" value must match pattern/)]);
    expect(check(answer('GET', '/v1/pets', 304, undefined, { etag: '"abc"', 'cache-status': 'animal-store; hit' })).problems).toEqual([]);
    expect(check(answer('GET', '/v1/pets', 304)).problems).toEqual(['header ETag is required and missing']);
  });

  it('validates a JSON body by its schema, nullable fields and all', () => {
    const event = { id: 1, type: 'pet.created', occurredAt: '2026-11-23T09:30:00.000Z', pet: PET, order: null };
    expect(check(answer('GET', '/v1/events', 200, [event])).problems).toEqual([]);
    expect(check(answer('GET', '/v1/events', 200, [{ ...event, pet: 'Rex' }])).problems).toEqual([expect.stringMatching(/^body: body\/0\/pet /)]);
    expect(check(answer('GET', '/v1/events', 200, [{ ...event, extra: undefined, order: undefined }])).problems)
      .toEqual([expect.stringMatching(/^body: body\/0 must have required property 'order'/)]);
  });

  it('judges a problem+json error by the Problem schema, and refuses a media type the response does not list', () => {
    const problem = { type: 'about:blank', title: 'Bad Request', status: 400, detail: 'Invalid "limit"', instance: 'r1', code: 'BAD_REQUEST' };
    expect(check(answer('GET', '/v1/pets', 400, problem, {}, 'application/problem+json')).problems).toEqual([]);
    expect(check(answer('GET', '/v1/pets', 400, { code: 'BAD_REQUEST' }, {}, 'application/problem+json')).problems)
      .toEqual([expect.stringMatching(/^body: body must have required property 'type'/)]);
    expect(check(answer('GET', '/v1/pets', 200, [PET], {}, 'text/html')).problems)
      .toEqual(['media type text/html is not documented (documented: application/json)']);
  });

  it('judges HEAD as the path\'s GET without a body, and a 204 by its having none', () => {
    expect(check({ ...answer('HEAD', '/v1/pets', 200, [PET]), text: undefined })).toEqual({ operation: 'listPets 200', problems: [] });
    expect(check(answer('HEAD', '/v1/pets', 200, [PET])).problems).toEqual(['a HEAD answer has a body']);
    expect(check(answer('DELETE', '/v1/pets/1', 204)).problems).toEqual([]);
    expect(check(answer('DELETE', '/v1/pets/1', 204, PET)).problems).toEqual(['a 204 has a body']);
  });
});
