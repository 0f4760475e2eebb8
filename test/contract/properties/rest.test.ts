import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientHeaders } from '../../support/arbitraries/headers.js';
import { apiPath, bodyText, queryString } from '../../support/arbitraries/rest.js';
import { checkContract } from '../../support/contract-checks.js';
import { fuzzTarget } from '../../support/fuzz-target.js';
import { fuzzParameters } from '../../support/fuzz.js';

const target = fuzzTarget();

const request = () => fc.record({
  method: fc.constantFrom('GET', 'GET', 'POST', 'POST', 'PUT', 'PATCH', 'PATCH', 'DELETE', 'OPTIONS'),
  path: apiPath,
  query: queryString,
  headers: clientHeaders(target.key, target.restrictedKey),
  body: fc.option(bodyText, { nil: undefined }),
});

describe('REST, any request (property)', () => {
  it('never answers 5xx, answers every error in the Error shape with its status, and adds or removes a pet only with a 201 or 204', async () => {
    await fc.assert(fc.asyncProperty(request(), async (req) => {
      const before = await target.pets.count();
      const response = await fetch(`${target.api.url}${req.path}${req.query}`, {
        method: req.method,
        headers: req.headers,
        body: req.method === 'GET' || req.method === 'OPTIONS' ? undefined : req.body,
        redirect: 'manual',
      });
      const text = await response.text();
      checkContract(req.path.startsWith('/graphql') ? 'graphql' : 'rest', { status: response.status, headers: response.headers, text }, req);
      // Only POST /v1/pets adds a pet (an order's 201 adds an order); only a 204 (DELETE) removes one.
      // A replay (Idempotency-Key) gives a 201 again without creating anything.
      const replayed = response.headers.get('idempotent-replayed') === 'true';
      const change = response.status === 201 && req.path === '/v1/pets' && !replayed ? 1 : response.status === 204 ? -1 : 0;
      expect(await target.pets.count(), `${JSON.stringify(req)} → ${response.status}`).toBe(before + change);
    }), fuzzParameters);
  }, 600_000);

  it('then answers a valid request normally', async () => {
    const created = await target.api.post('/v1/pets', { name: 'After the fuzz', categoryId: 3 });
    expect(created.status).toBe(201);
    expect((await target.api.get(`/v1/pets/${created.body.id}`)).body).toEqual(created.body);
  });
});
