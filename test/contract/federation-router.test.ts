import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { buildHTTPExecutor } from '@graphql-tools/executor-http';
import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.js';
import { newPetOn } from '../support/records.js';
import { startServer, type TestServer } from '../support/server.js';
import { subscribe } from '../support/sse.js';

/**
 * The service composed into a supergraph as a team would compose it: our subgraph's SDL (read from its
 * `_service`), a small subgraph of the test's own that extends Pet, composed by @theguild/federation-
 * composition and served by Hive Gateway, which forwards each client's Authorization to the subgraphs.
 */

/** The other team's subgraph: reviews of our pets, and pets of its own choosing, by reference. */
const REVIEWS_SDL = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"])
  scalar SafeInt
  type Pet @key(fields: "id") { id: SafeInt! reviews: [String!]! }
  type Query { featuredPets: [Pet]! }
`;

let api: TestServer;
let reviews: Server;
let gateway: Server;
let gatewayUrl: string;
/** The pets the reviews subgraph features: ids only, which our _entities turns into records. */
const featured: number[] = [];
/** The Authorization each call to the reviews subgraph carried. */
const seenByReviews: (string | null)[] = [];

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  api = await startServer();
  const reviewsYoga = createYoga({
    schema: buildSubgraphSchema({
      typeDefs: parse(REVIEWS_SDL),
      resolvers: {
        Query: { featuredPets: () => featured.map((id) => ({ __typename: 'Pet', id })) },
        Pet: {
          __resolveReference: (pet: { id: number }) => pet,
          reviews: (pet: { id: number }) => [`Pet ${pet.id}: a good animal`],
        },
      } as never,
    }),
    logging: false,
    plugins: [{ onRequest({ request }) { if (request.url.includes('/graphql')) seenByReviews.push(request.headers.get('authorization')); } }],
  });
  reviews = createServer(reviewsYoga);
  const reviewsUrl = await listen(reviews);

  const sdl = (await call(`${api.url}/graphql/subgraph`, { method: 'POST', json: { query: '{ _service { sdl } }' }, headers: api.headers })).body.data._service.sdl;
  const composed = composeServices([
    { name: 'store', typeDefs: parse(sdl), url: `${api.url}/graphql/subgraph` },
    { name: 'reviews', typeDefs: parse(REVIEWS_SDL), url: `${reviewsUrl}/graphql` },
  ]);
  expect(composed.errors ?? []).toEqual([]);
  const runtime = createGatewayRuntime({
    supergraph: composed.supergraphSdl!,
    logging: false,
    // @graphql-hive/gateway (the CLI and image) ships @graphql-mesh/transport-http, which is this executor
    // over the gateway's fetch (where header propagation hooks in); the runtime alone leaves it out.
    transports: { http: { getSubgraphExecutor: ({ transportEntry, fetch }) => buildHTTPExecutor({ endpoint: transportEntry.location!, fetch: fetch as never }) } },
    propagateHeaders: {
      // The caller's credentials reach every subgraph: each decides what its caller may read.
      fromClientToSubgraphs: ({ request }) => ({ authorization: request.headers.get('authorization') }),
    },
  });
  gateway = createServer(runtime);
  gatewayUrl = await listen(gateway);
});

afterAll(async () => {
  for (const server of [gateway, reviews]) {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  }
  await api?.close();
});

const throughRouter = (query: string, headers: Record<string, string> = api.headers, variables?: object) =>
  call(`${gatewayUrl}/graphql`, { method: 'POST', json: { query, variables }, headers: { ...headers, accept: 'application/json' } });

describe('the service in a supergraph, through Hive Gateway', () => {
  it('answers our pets with the reviews subgraph\'s field on them (their _entities, from our ids)', async () => {
    const pet = await newPetOn(api, 'Crossed');
    const reply = await throughRouter('query($id: SafeInt!) { pet(petId: $id) { id name reviews } }', api.headers, { id: pet.id });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ data: { pet: { id: pet.id, name: 'Crossed', reviews: [`Pet ${pet.id}: a good animal`] } } });
  });

  it('answers the reviews subgraph\'s pets with our fields on them (our _entities, batched), a missing one null', async () => {
    const pets = [await newPetOn(api, 'First'), await newPetOn(api, 'Second')];
    featured.splice(0, featured.length, pets[1]!.id, 9_000_000_000, pets[0]!.id);
    const reply = await throughRouter('{ featuredPets { id name status nodeId reviews } }');
    expect(reply.status).toBe(200);
    expect(reply.body.data.featuredPets).toEqual([
      { id: pets[1]!.id, name: 'Second', status: 'available', nodeId: expect.any(String), reviews: [`Pet ${pets[1]!.id}: a good animal`] },
      // A pet the other subgraph named and we do not have: our _entities answers null, and its non-null
      // fields make the router null the whole item.
      null,
      { id: pets[0]!.id, name: 'First', status: 'available', nodeId: expect.any(String), reviews: [`Pet ${pets[0]!.id}: a good animal`] },
    ]);
    expect(seenByReviews.at(-1)).toBe(api.headers.authorization);
  });

  it('surfaces our FORBIDDEN for a key without pets:read, and serves what the key may read', async () => {
    const pet = await newPetOn(api, 'Hidden');
    featured.splice(0, featured.length, pet.id);
    const { auth } = await api.newKey('pro', {}, 'orders:read');
    const reply = await throughRouter('{ featuredPets { id name } }', auth);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ featuredPets: [null] });
    // The router keeps our error as we sent it (code, status, message), naming the subgraph it came from.
    expect(reply.body.errors).toEqual([{
      message: 'This key may not read Pet records through Query._entities: it needs the pets:read scope (it has orders:read)',
      path: ['featuredPets', 'name'],
      extensions: { code: 'FORBIDDEN', status: 403, serviceName: 'store' },
    }]);
  });

  it('passes our UNAUTHENTICATED on to a caller without credentials', async () => {
    const reply = await throughRouter('{ pets(limit: 1) { id } }', {});
    expect(reply.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({
      extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }),
    })]));
    expect(reply.body.data ?? null).toEqual(null);
  });

  it('streams a subscription from our subgraph over SSE, each event\'s pet completed with the reviews subgraph\'s field', async () => {
    const stream = await subscribe(gatewayUrl, 'subscription { petChanged { kind pet { id name reviews } } }', api.headers);
    try {
      expect(stream.status).toBe(200);
      // The router opens our stream when its client's does: a change made before it listens is not heard.
      const seen = stream.next(10_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const pet = await newPetOn(api, 'Live');
      expect(await seen).toEqual({ data: { petChanged: { kind: 'CREATED', pet: { id: pet.id, name: 'Live', reviews: [`Pet ${pet.id}: a good animal`] } } } });
    } finally {
      stream.close();
    }
  });
});
