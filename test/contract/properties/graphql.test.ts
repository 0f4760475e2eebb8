import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wire } from '../../support/arbitraries/deep.js';
import { graphqlBody } from '../../support/arbitraries/graphql.js';
import { clientHeaders } from '../../support/arbitraries/headers.js';
import { checkContract } from '../../support/contract-checks.js';
import { streamRefusal } from '../../support/sse.js';
import { fuzzTarget } from '../../support/fuzz-target.js';
import { fuzzParameters } from '../../support/fuzz.js';

const target = fuzzTarget();

describe('GraphQL, any operation (property)', () => {
  it('never answers 5xx, gives every error one of our codes with its status, and writes a pet only when one is returned', async () => {
    const request = fc.record({
      body: fc.oneof({ weight: 9, arbitrary: graphqlBody }, { weight: 1, arbitrary: fc.string() }),
      headers: fc.oneof(
        { weight: 4, arbitrary: fc.constant({ authorization: `Bearer ${target.key}`, 'content-type': 'application/json' }) },
        { weight: 1, arbitrary: clientHeaders(target.key, target.restrictedKey) },
      ),
      get: fc.boolean(),
    });
    await fc.assert(fc.asyncProperty(request, async (req) => {
      const before = await target.pets.count();
      // GET carries the operation in the query string, as GraphQL over HTTP allows for queries; one too
      // long for MAX_HEADER_BYTES (deep variables) goes as a POST (past it, the server may cut the upload short).
      const sent = typeof req.body === 'string' ? req.body : wire(req.body);
      const query = typeof req.body === 'object' && req.get
        ? `?${new URLSearchParams(Object.entries(req.body).map(([k, v]) => [k, typeof v === 'string' ? v : wire(v)]))}` : '';
      const asGet = query.length > 0 && query.length < 8_000;
      const response = await fetch(`${target.api.url}/graphql${asGet ? query : ''}`, {
        method: asGet ? 'GET' : 'POST', headers: req.headers, body: asGet ? undefined : sent,
      });
      // A subscription that was accepted streams until closed: its headers are the answer to check. One
      // refused before it streams is a stream too, for a client that takes only streams: its error is checked.
      const streaming = response.status === 200 && response.headers.get('content-type')?.startsWith('text/event-stream');
      const refusal = streaming ? await streamRefusal(response) : undefined;
      const text = streaming ? refusal?.text ?? '' : await response.text();
      checkContract('graphql', { status: refusal?.status ?? response.status, headers: response.headers, text }, req);
      const data = (() => { try { return JSON.parse(text).data ?? {}; } catch { return {}; } })();
      const replayed = response.headers.get('idempotent-replayed') === 'true';
      const change = replayed ? 0 : (data.createPet ? 1 : 0) - (data.deletePet ? 1 : 0);
      expect(await target.pets.count(), `${JSON.stringify(req)} → ${response.status} ${text.slice(0, 200)}`).toBe(before + change);
    }), fuzzParameters);
  }, 600_000);

  it('then answers a valid operation normally', async () => {
    const res = await target.api.gql('mutation { createPet(input: { name: "After the fuzz", categoryId: 3 }) { id name } }');
    expect(res.status).toBe(200);
    expect(res.body.data.createPet.name).toBe('After the fuzz');
  });
});
