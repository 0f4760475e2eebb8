import { EventSource } from 'eventsource';
import { createClient } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { subscribe, type EventStream } from '../support/sse.js';

/**
 * Every refusal of a subscription before its stream opens, as the clients people use show it: a
 * browser's EventSource (the `eventsource` package, which follows the WHATWG processing model) and
 * graphql-sse's client in its default mode (distinct connections), each with its default settings.
 */
let api: TestServer;
const held: EventStream[] = [];
beforeAll(async () => { api = await startServer({ env: { SUBSCRIPTIONS_PER_KEY: '1' } }); });
afterAll(async () => {
  for (const stream of held) stream.close();
  await api?.close();
});

const newest = async () => {
  const [last] = (await api.get('/v1/events?limit=1')).body as { id: number }[];
  let id = last?.id ?? 0;
  for (let next = await api.get(`/v1/events?limit=100&after=${id}`); next.body.length > 0; next = await api.get(`/v1/events?limit=100&after=${id}`)) id = next.body.at(-1).id;
  return id;
};

interface Shown { readonly errors?: { message: string; extensions: { code: string; status: number } }[]; readonly failure?: string }

/** What an EventSource hears on GET /graphql: its `next` events' errors, or its error event (code and message) if it fails. */
function eventSource(query: string, headers: Record<string, string>): Promise<Shown & { ended: 'complete' | 'error' }> {
  const url = new URL(`${api.url}/graphql`);
  url.searchParams.set('query', query);
  return new Promise((resolve) => {
    let errors: Shown['errors'];
    const source = new EventSource(url, { fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, ...headers } }) });
    source.addEventListener('next', (event) => { errors = JSON.parse(event.data).errors; });
    // A client of the GraphQL-over-SSE protocol closes on `complete`, else EventSource would connect again.
    source.addEventListener('complete', () => { source.close(); resolve({ errors, ended: 'complete' }); });
    source.onerror = (event) => { source.close(); resolve({ errors, failure: `${event.code}: ${event.message}`, ended: 'error' }); };
  });
}

/** What graphql-sse's client yields for a subscription (POST, distinct connections), or the error it throws. */
async function graphqlSse(query: string, headers: Record<string, string>, variables?: Record<string, unknown>): Promise<Shown> {
  const client = createClient({ url: `${api.url}/graphql`, headers, fetchFn: fetch });
  try {
    const results: Shown[] = [];
    for await (const result of client.iterate({ query, variables })) results.push(result as Shown);
    expect(results).toHaveLength(1);
    return results[0]!;
  } catch (error) {
    return { failure: String(error) };
  } finally {
    client.dispose();
  }
}

/** A key of its own for each case: a stream's slot is given back only once its connection has closed. */
const fresh = async () => (await api.newKey('enterprise', { perMinute: 1_000, perDay: 10_000 })).auth;

/** The refusal every client shows: one error with its code, status and message. */
const refusal = (code: string, status: number, message: string | RegExp) => ({
  errors: [{ message: typeof message === 'string' ? message : expect.stringMatching(message), extensions: { code, status } }],
});

describe('a subscription refused before its stream opens', () => {
  it('is a 200 event stream holding the error as one `next` event, then `complete`, with the refusal\'s headers', async () => {
    const last = await newest();
    const res = await fetch(`${api.url}/graphql`, {
      method: 'POST',
      headers: { ...api.headers, accept: 'text/event-stream', 'content-type': 'application/json', 'last-event-id': String(last + 1000) },
      body: JSON.stringify({ query: 'subscription { petChanged { id } }' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const error = { message: `No event has the id ${last + 1000}: the newest is ${last || 'none yet'}`, extensions: { code: 'BAD_REQUEST', status: 400 } };
    expect(await res.text()).toBe(`event: next\ndata: ${JSON.stringify({ errors: [error] })}\n\nevent: complete\ndata:\n\n`);
  });

  it('stays the error\'s status and a JSON body for a client that accepts JSON, so HTTP tools see the failure', async () => {
    const res = await fetch(`${api.url}/graphql`, {
      method: 'POST',
      headers: { ...api.headers, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'last-event-id': 'twelve' },
      body: JSON.stringify({ query: 'subscription { petChanged { id } }' }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((await res.json()).errors[0].extensions).toEqual({ code: 'BAD_REQUEST', status: 400 });
  });

  it('shows EventSource and graphql-sse the code and message of a Last-Event-ID larger than any id', async () => {
    const last = await newest();
    const expected = refusal('BAD_REQUEST', 400, `No event has the id ${last + 1000}: the newest is ${last || 'none yet'}`);
    const headers = { ...(await fresh()), 'last-event-id': String(last + 1000) };
    expect(await eventSource('subscription { petChanged { id } }', headers)).toEqual({ ...expected, ended: 'complete' });
    expect(await graphqlSse('subscription { petChanged { id } }', headers)).toEqual(expected);
  });

  it('shows them a malformed Last-Event-ID', async () => {
    const expected = refusal('BAD_REQUEST', 400, /^Last-Event-ID must be the id of an event this service sent \(an integer from 1 to 9007199254740991\), got "twelve"$/);
    const headers = { ...(await fresh()), 'last-event-id': 'twelve' };
    expect(await eventSource('subscription { petChanged { id } }', headers)).toEqual({ ...expected, ended: 'complete' });
    expect(await graphqlSse('subscription { petChanged { id } }', headers)).toEqual(expected);
  });

  it('shows them a bad `after`: not an id, and an id never given out', async () => {
    const headers = await fresh();
    const zero = refusal('BAD_REQUEST', 400, 'Expected an integer from 1 to 9007199254740991, got 0');
    expect(await eventSource('subscription { petChanged(after: 0) { id } }', headers)).toEqual({ ...zero, ended: 'complete' });
    const notAnId = refusal('BAD_REQUEST', 400, /^Variable "\$after" got invalid value "x"/);
    expect(await graphqlSse('subscription($after: SafeInt) { petChanged(after: $after) { id } }', headers, { after: 'x' })).toEqual(notAnId);
    const last = await newest();
    const never = refusal('BAD_REQUEST', 400, `No event has the id ${last + 7}: the newest is ${last || 'none yet'}`);
    expect(await eventSource(`subscription { petChanged(after: ${last + 7}) { id } }`, headers)).toEqual({ ...never, ended: 'complete' });
    expect(await graphqlSse('subscription($after: SafeInt) { petChanged(after: $after) { id } }', await fresh(), { after: last + 7 })).toEqual(never);
  });

  it('shows them a missing scope', async () => {
    const { auth } = await api.newKey('free', {}, 'orders:read');
    const expected = refusal('FORBIDDEN', 403, /needs the pets:read scope/);
    expect(await eventSource('subscription { petChanged { id } }', auth)).toEqual({ ...expected, ended: 'complete' });
    expect(await graphqlSse('subscription { petChanged { id } }', auth)).toEqual(expected);
  });

  it('shows them too many streams, and tells EventSource to wait Retry-After before it asks again', async () => {
    const auth = await fresh();
    const open = await subscribe(api.url, 'subscription { petChanged { id } }', auth);
    held.push(open);
    expect(open.opened).toBe(true);
    const expected = refusal('RATE_LIMITED', 429, 'A key may hold 1 open subscriptions at once; close one before opening another');
    expect(await eventSource('subscription { petChanged { id } }', auth)).toEqual({ ...expected, ended: 'complete' });
    expect(await graphqlSse('subscription { petChanged { id } }', auth)).toEqual(expected);
    const res = await fetch(`${api.url}/graphql?query=${encodeURIComponent('subscription { petChanged { id } }')}`, { headers: { ...auth, accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect(await res.text()).toMatch(/^retry: 1000\n\nevent: next\ndata: \{"errors":\[\{"message":"A key may hold 1 open/);
    open.close();
  });
});
