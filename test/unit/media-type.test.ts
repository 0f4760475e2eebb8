import { createSchema, createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { responseMediaType, takesOnlyEventStreams } from '../../src/graphql/media-type.js';

/** yoga itself, answering a plain query: the choice our refusals must make the same way. */
const yoga = createYoga({ schema: createSchema({ typeDefs: 'type Query { ok: Boolean }', resolvers: { Query: { ok: () => true } } }), logging: false });

const yogaChooses = async (accept: string | undefined) => {
  const res = await yoga.fetch('http://yoga/graphql', {
    method: 'POST', headers: { 'content-type': 'application/json', ...(accept === undefined ? {} : { accept }) }, body: '{"query":"{ ok }"}',
  });
  return res.headers.get('content-type')?.split(';')[0];
};

describe('the media type of a /graphql refusal', () => {
  it.each([
    undefined, '', '*/*', 'application/json', 'application/graphql-response+json',
    'application/graphql-response+json, application/json;q=0.9', 'application/json, application/graphql-response+json',
    'application/*', 'application/graphql-response+json;charset=utf-8', 'application/graphql-response+json;charset=latin1, application/json',
    'application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed',
    'text/html, application/xhtml+xml, application/xml;q=0.9, */*;q=0.8', 'APPLICATION/GRAPHQL-RESPONSE+JSON',
  ])('is the one yoga answers Accept: %j with', async (accept) => {
    expect(responseMediaType(accept ?? null)).toBe(await yogaChooses(accept));
  });

  it('is JSON when Accept names nothing a GraphQL result is sent in (yoga would stream or refuse)', () => {
    expect(responseMediaType('text/event-stream')).toBe('application/json');
    expect(responseMediaType('image/png')).toBe('application/json');
  });
});

describe('a refusal answered as an event stream', () => {
  it.each([
    undefined, '*/*', 'application/json', 'text/event-stream', 'text/*', 'TEXT/EVENT-STREAM', 'text/event-stream;charset=utf-8',
    'text/event-stream, application/json', 'application/json, text/event-stream', 'text/event-stream, */*;q=0.1',
    'text/event-stream;charset=latin1', 'image/png',
  ])('is what yoga answers a result with for Accept: %j', async (accept) => {
    expect(takesOnlyEventStreams(accept ?? null)).toBe(await yogaChooses(accept) === 'text/event-stream');
  });
});
