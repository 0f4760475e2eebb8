import { describe, expect, it } from 'vitest';
import { errorBodies, type Surface } from '../../src/pipeline/error-response.js';
import { createRouter, type Endpoint, type PublicEndpoint } from '../../src/pipeline/routing.js';

const endpoint = (): Endpoint => ({ handle: () => new Response() });
const publicEndpoint = (): PublicEndpoint => ({ get: () => new Response() });
const surface = (): Surface => ({ renderError: () => new Response() });

const rest = surface();
const graphql = surface();
const getPets = endpoint(), postPets = endpoint(), getPet = endpoint(), getOrderOfPet = endpoint(), postGraphql = endpoint();
const healthz = publicEndpoint(), graphiql = publicEndpoint(), docs = publicEndpoint(), openapi = publicEndpoint();

const router = createRouter({
  api: [
    { prefix: '/v1', surface: rest, paths: {
      '/v1/pets': { GET: getPets, POST: postPets },
      '/v1/pets/:petId': { GET: getPet },
      '/v1/pets/:petId/orders/:orderId': { GET: getOrderOfPet },
    } },
    { prefix: '/graphql', surface: graphql, paths: { '/graphql': { POST: postGraphql } } },
  ],
  probes: { '/healthz': healthz },
  pages: { '/graphql': graphiql, '/docs': docs, '/v1/openapi.json': openapi },
});
const { resolve } = router;

describe('createRouter', () => {
  it('resolves an exact API path to its route, methods (HEAD as its GET) and surface', () => {
    expect(resolve('/v1/pets')).toEqual({
      route: {
        label: '/v1/pets', surface: rest, methods: new Map([['GET', getPets], ['HEAD', getPets], ['POST', postPets]]), page: undefined,
        allow: 'GET, HEAD, POST',
      },
      params: {},
    });
  });

  it('lists every path it answers with its methods, once', () => {
    expect(router.paths).toEqual([
      { path: '/v1/pets', methods: ['GET', 'HEAD', 'POST'] },
      { path: '/v1/pets/:petId', methods: ['GET', 'HEAD'] },
      { path: '/v1/pets/:petId/orders/:orderId', methods: ['GET', 'HEAD'] },
      { path: '/graphql', methods: ['POST'] },
      { path: '/healthz', methods: ['GET', 'HEAD'] },
      { path: '/docs', methods: ['GET', 'HEAD'] },
      { path: '/v1/openapi.json', methods: ['GET', 'HEAD'] },
    ]);
  });

  it('resolves the same exact path to the same object, resolved once', () => {
    expect(resolve('/v1/pets')).toBe(resolve('/v1/pets'));
    expect(resolve('/healthz')).toBe(resolve('/healthz'));
  });

  it.each([
    ['/v1/pets/12', '/v1/pets/:petId', { petId: '12' }],
    ['/v1/pets/a%20b', '/v1/pets/:petId', { petId: 'a b' }],
    ['/v1/pets/%E2%9C%93', '/v1/pets/:petId', { petId: '✓' }],
    ['/v1/pets/%2F', '/v1/pets/:petId', { petId: '/' }],
    ['/v1/pets/%E0%A4%A', '/v1/pets/:petId', { petId: '%E0%A4%A' }],
    ['/v1/pets/100%', '/v1/pets/:petId', { petId: '100%' }],
    ['/v1/pets/3/orders/x%2By', '/v1/pets/:petId/orders/:orderId', { petId: '3', orderId: 'x+y' }],
  ])('resolves %s to %s with its parameters decoded (a bad escape kept as sent)', (pathname, label, params) => {
    const { route, params: got } = resolve(pathname);
    expect([route.label, route.surface, got]).toEqual([label, rest, params]);
  });

  it('gives a parameter route its methods', () => {
    expect(resolve('/v1/pets/3/orders/4').route).toMatchObject({ methods: new Map([['GET', getOrderOfPet], ['HEAD', getOrderOfPet]]), allow: 'GET, HEAD' });
  });

  it.each([
    ['/v1/pets/', rest], ['/v1/pets/1/2', rest], ['/v1', rest], ['/v1/unknown', rest],
    ['/graphql/x', graphql], ['/v1x', errorBodies], ['/graphqlx', errorBodies], ['/', errorBodies], ['/nowhere', errorBodies],
  ])('answers the unmatched %s with the surface of its prefix', (pathname, expected) => {
    expect(resolve(pathname)).toEqual({ route: { label: 'unmatched', surface: expected }, params: {} });
  });

  it('resolves unmatched paths of one surface to one object', () => {
    expect(resolve('/v1/a')).toBe(resolve('/v1/b'));
    expect(resolve('/a')).toBe(resolve('/b'));
    expect(resolve('/a')).not.toBe(resolve('/v1/a'));
  });

  it('attaches a page on an API path to that route', () => {
    expect(resolve('/graphql')).toEqual({
      route: { label: '/graphql', surface: graphql, methods: new Map([['POST', postGraphql]]), page: graphiql, allow: 'POST' },
      params: {},
    });
  });

  it.each([
    ['/docs', docs, errorBodies],
    ['/v1/openapi.json', openapi, rest],
  ])('resolves the page %s alone, answering refusals as its prefix does', (pathname, page, expected) => {
    expect(resolve(pathname)).toEqual({ route: { label: pathname, surface: expected, page, allow: 'GET, HEAD' }, params: {} });
  });

  it('resolves a probe with the Error body surface', () => {
    expect(resolve('/healthz')).toEqual({ route: { label: '/healthz', surface: errorBodies, probe: healthz, allow: 'GET, HEAD' }, params: {} });
  });
});
