import { ApolloClient, HttpLink, InMemoryCache, gql as apolloGql } from '@apollo/client';
import { CombinedGraphQLErrors, ServerError } from '@apollo/client/errors';
import { Client, fetchExchange, gql as urqlGql, type CombinedError } from '@urql/core';
import type { GraphQLFormattedError } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

/**
 * Real GraphQL clients, configured as a frontend configures them, read every /graphql refusal as a GraphQL
 * error with its code (decisions.md, "GraphQL"): Apollo Client 4 reads the body of a non-2xx response only
 * when it is `application/graphql-response+json` (otherwise it throws a bare ServerError), so the service
 * must answer refusals in the media type the client's Accept asks for.
 */

let api: TestServer;
beforeAll(async () => { api = await startServer(); });
afterAll(async () => { await api?.close(); });

type Auth = Record<string, string>;

/** The Accept each client sends unless told otherwise (Apollo's HttpLink, urql's fetchExchange). */
const APOLLO_ACCEPT = 'application/graphql-response+json,application/json;q=0.9';
const URQL_ACCEPT = 'application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed';

const PETS = 'query Pets { pets(limit: 1) { id name } }';
const BAD_LIMIT = 'query PetsUpTo($limit: Int) { pets(limit: $limit) { id } }';
const CREATE = 'mutation CreatePet($input: NewPet!) { createPet(input: $input) { id } }';
/** A valid document 9 levels deep (pets 1, orders 2, pet 3, ... id 9); the default limit is 8. */
const DEPTH_9 = 'query Deep { pets(limit: 1) { orders { pet { orders { pet { orders { pet { orders { id } } } } } } } } }';
const DEPTH_MESSAGE = 'The operation is 9 levels deep; the limit is 8';

/** What went over the wire: the client's own request, untouched, and the response's status and headers. */
interface Exchange { readonly method: string; readonly accept: string | null; readonly status: number; readonly headers: Headers }

/** The platform's fetch, recording each exchange (a frontend passes its fetch the same way); the request goes out as the client built it. */
function recordingFetch() {
  const exchanges: Exchange[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    exchanges.push({ method: init?.method ?? 'GET', accept: headers.get('accept'), status: response.status, headers: response.headers });
    return response;
  };
  return { fetchFn, exchanges, last: () => exchanges.at(-1)! };
}

/** A key with a budget of one request a minute, already spent: its next operation is refused with 429. */
async function spentKey(): Promise<Auth> {
  const { auth } = await api.newKey('enterprise', { perMinute: 1, perDay: 100 });
  expect((await api.gql('{ pets(limit: 1) { id } }', {}, auth)).status).toBe(200);
  return auth;
}

const UNKNOWN_KEY = { authorization: 'Bearer as_live_0000000000000000000000000000000000000000' };
const unauthenticated: [string, () => Auth][] = [['no key', () => ({})], ['an unknown key', () => UNKNOWN_KEY]];
const badVariables: [string, string, object, string][] = [
  ['a query with limit "abc"', BAD_LIMIT, { limit: 'abc' }, '"abc"'],
  ['a mutation with categoryId "5"', CREATE, { input: { name: 'Rex', categoryId: '5' } }, 'categoryId'],
];

/** The one error of a refusal: its code and status in extensions, the body without `data`. */
function expectRefusal(errors: readonly GraphQLFormattedError[], code: string, status: number, message: unknown = expect.any(String)) {
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatchObject({ message, extensions: { code, status } });
}

function expectHttp(exchange: Exchange, status: number) {
  expect(exchange.status).toBe(status);
  if (status === 401) expect(exchange.headers.get('www-authenticate')).toMatch(/^Bearer /);
  if (status === 429) expect(exchange.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
}

describe('Apollo Client 4 (HttpLink, its default Accept)', () => {
  function apollo(auth: Auth) {
    const recorder = recordingFetch();
    const client = new ApolloClient({
      cache: new InMemoryCache(),
      link: new HttpLink({ uri: `${api.url}/graphql`, headers: auth, fetch: recorder.fetchFn }),
    });
    return { client, ...recorder };
  }

  /** What the client threw; a failure message that shows a ServerError's status and body. */
  async function thrown(run: () => Promise<unknown>): Promise<CombinedGraphQLErrors> {
    let error: unknown;
    try {
      await run();
    } catch (caught) {
      error = caught;
    }
    const seen = ServerError.is(error)
      ? `ServerError (status ${error.statusCode}, content-type ${error.response.headers.get('content-type')}): ${error.message}; body ${error.bodyText}`
      : error === undefined ? 'no error' : `${(error as Error).name}: ${(error as Error).message}`;
    expect(CombinedGraphQLErrors.is(error), `expected CombinedGraphQLErrors, got ${seen}`).toBe(true);
    const combined = error as CombinedGraphQLErrors;
    // A refusal's body has no data entry, so the client has none to offer.
    expect(combined.data).toBeUndefined();
    return combined;
  }

  it.each(unauthenticated)('reads a 401 for %s as a GraphQL error with code UNAUTHENTICATED', async (_case, auth) => {
    const { client, last } = apollo(auth());
    const error = await thrown(() => client.query({ query: apolloGql(PETS), fetchPolicy: 'network-only' }));
    expectRefusal(error.errors, 'UNAUTHENTICATED', 401);
    expectHttp(last(), 401);
  });

  it('reads a 429 for a key over its minute limit as a GraphQL error with code RATE_LIMITED', async () => {
    const { client, last } = apollo(await spentKey());
    const error = await thrown(() => client.query({ query: apolloGql(PETS), fetchPolicy: 'network-only' }));
    expectRefusal(error.errors, 'RATE_LIMITED', 429, expect.stringContaining('per minute'));
    expectHttp(last(), 429);
  });

  it.each(badVariables)('reads %s as a GraphQL error with code BAD_REQUEST', async (_case, document, variables, mentions) => {
    const { client, last } = apollo(api.headers);
    const operation = document.startsWith('mutation')
      ? () => client.mutate({ mutation: apolloGql(document), variables })
      : () => client.query({ query: apolloGql(document), variables, fetchPolicy: 'network-only' });
    const error = await thrown(operation);
    expectRefusal(error.errors, 'BAD_REQUEST', 400, expect.stringContaining(mentions));
    expectHttp(last(), 400);
  });

  it('reads a document deeper than the depth limit as a GraphQL error with code BAD_REQUEST naming the limit', async () => {
    const { client, last } = apollo(api.headers);
    const error = await thrown(() => client.query({ query: apolloGql(DEPTH_9), fetchPolicy: 'network-only' }));
    expectRefusal(error.errors, 'BAD_REQUEST', 400, DEPTH_MESSAGE);
    expectHttp(last(), 400);
  });
});

describe('urql (@urql/core, fetchExchange, its default fetch options)', () => {
  function urql(auth: Auth) {
    const recorder = recordingFetch();
    const client = new Client({
      url: `${api.url}/graphql`,
      exchanges: [fetchExchange],
      fetch: recorder.fetchFn,
      fetchOptions: { headers: auth },
      requestPolicy: 'network-only',
    });
    return { client, ...recorder };
  }

  /** The result's CombinedError, which must hold the body's GraphQL errors and no network error. */
  function graphQLErrorsOf(result: { data?: unknown; error?: CombinedError }): readonly GraphQLFormattedError[] {
    const { error } = result;
    expect(error, 'expected a CombinedError, the operation succeeded').toBeDefined();
    expect(error!.networkError, `expected no network error, got ${error!.networkError?.message}`).toBeUndefined();
    expect(result.data).toBeUndefined();
    return error!.graphQLErrors;
  }

  it.each(unauthenticated)('reads a 401 for %s as a GraphQL error with code UNAUTHENTICATED', async (_case, auth) => {
    const { client, last } = urql(auth());
    const result = await client.query(urqlGql(PETS), {}).toPromise();
    expectRefusal(graphQLErrorsOf(result), 'UNAUTHENTICATED', 401);
    expectHttp(last(), 401);
  });

  it('reads a 429 for a key over its minute limit as a GraphQL error with code RATE_LIMITED', async () => {
    const { client, last } = urql(await spentKey());
    const result = await client.query(urqlGql(PETS), {}).toPromise();
    expectRefusal(graphQLErrorsOf(result), 'RATE_LIMITED', 429, expect.stringContaining('per minute'));
    expectHttp(last(), 429);
  });

  it.each(badVariables)('reads %s as a GraphQL error with code BAD_REQUEST', async (_case, document, variables, mentions) => {
    const { client, last } = urql(api.headers);
    const result = document.startsWith('mutation')
      ? await client.mutation(urqlGql(document), variables).toPromise()
      : await client.query(urqlGql(document), variables).toPromise();
    expectRefusal(graphQLErrorsOf(result), 'BAD_REQUEST', 400, expect.stringContaining(mentions));
    expectHttp(last(), 400);
  });

  it('reads a document deeper than the depth limit as a GraphQL error with code BAD_REQUEST naming the limit', async () => {
    const { client, last } = urql(api.headers);
    const result = await client.query(urqlGql(DEPTH_9), {}).toPromise();
    expectRefusal(graphQLErrorsOf(result), 'BAD_REQUEST', 400, DEPTH_MESSAGE);
    expectHttp(last(), 400);
  });
});

describe("each client's default Accept gets application/graphql-response+json, refusals included", () => {
  /** Runs one outcome through a client and returns what went over the wire. */
  type Run = (auth: Auth, document: string, variables: object) => Promise<Exchange>;
  const clients: [string, string, Run][] = [
    ['Apollo Client', APOLLO_ACCEPT, async (auth, document, variables) => {
      const { fetchFn, last } = recordingFetch();
      const client = new ApolloClient({ cache: new InMemoryCache(), link: new HttpLink({ uri: `${api.url}/graphql`, headers: auth, fetch: fetchFn }) });
      await client.query({ query: apolloGql(document), variables, fetchPolicy: 'network-only' }).catch(() => undefined);
      return last();
    }],
    ['urql', URQL_ACCEPT, async (auth, document, variables) => {
      const { fetchFn, last } = recordingFetch();
      const client = new Client({ url: `${api.url}/graphql`, exchanges: [fetchExchange], fetch: fetchFn, fetchOptions: { headers: auth }, requestPolicy: 'network-only' });
      await client.query(urqlGql(document), variables).toPromise();
      return last();
    }],
  ];
  const outcomes: [string, number, () => Promise<Auth>, string, object][] = [
    ['a result', 200, async () => api.headers, PETS, {}],
    ['a 401', 401, async () => ({}), PETS, {}],
    ['a 429', 429, spentKey, PETS, {}],
    ['a bad variable', 400, async () => api.headers, BAD_LIMIT, { limit: 'abc' }],
    ['an operation limit', 400, async () => api.headers, DEPTH_9, {}],
  ];
  const cases = clients.flatMap(([name, accept, run]) => outcomes.map(([outcome, status, auth, document, variables]) =>
    [name, outcome, accept, run, status, auth, document, variables] as const));

  it.each(cases)('%s, %s', async (_name, _outcome, accept, run, status, auth, document, variables) => {
    const exchange = await run(await auth(), document, variables);
    expect(exchange.accept).toBe(accept);
    expect({ status: exchange.status, contentType: exchange.headers.get('content-type') })
      .toEqual({ status, contentType: 'application/graphql-response+json; charset=utf-8' });
  });
});

describe('the media type chosen as yoga chooses it, refusals included (no client)', () => {
  const JSON_TYPE = 'application/json; charset=utf-8';
  const GRAPHQL_TYPE = 'application/graphql-response+json; charset=utf-8';
  const accepts: [string, string | undefined, string][] = [
    ['no Accept', undefined, JSON_TYPE],
    ['*/*', '*/*', JSON_TYPE],
    ['application/json', 'application/json', JSON_TYPE],
    ['application/graphql-response+json', 'application/graphql-response+json', GRAPHQL_TYPE],
    ['application/json listed first', 'application/json, application/graphql-response+json', JSON_TYPE],
  ];
  const refusals: [string, number, string, () => Promise<Auth>, object][] = [
    ['401', 401, 'UNAUTHENTICATED', async () => ({}), { query: PETS }],
    ['429', 429, 'RATE_LIMITED', spentKey, { query: PETS }],
    ['a syntax error', 400, 'BAD_REQUEST', async () => api.headers, { query: '{ pets { id ' }],
    ['an operation limit', 400, 'BAD_REQUEST', async () => api.headers, { query: DEPTH_9 }],
  ];
  const cases = accepts.flatMap(([label, accept, type]) => refusals.map(([refusal, status, code, auth, body]) =>
    [refusal, label, accept, type, status, code, auth, body] as const));

  it.each(cases)('%s with %s', async (_refusal, _label, accept, type, status, code, auth, body) => {
    const res = await fetch(`${api.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}), ...(await auth()) },
      body: JSON.stringify(body),
    });
    const json = await res.json();
    expect({ status: res.status, contentType: res.headers.get('content-type'), hasData: 'data' in json })
      .toEqual({ status, contentType: type, hasData: false });
    expect(json).toEqual({ errors: [{ message: expect.any(String), extensions: { code, status } }] });
  });
});
