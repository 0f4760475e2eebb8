import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend } from '../support/backend.js';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
beforeAll(async () => { api = await startServer(); });
afterAll(async () => { await api?.close(); });

describe('public endpoints (no key needed)', () => {
  it('GET /healthz answers 200 while the process lives', async () => {
    const res = await fetch(`${api.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 when the database is reachable', async () => {
    const res = await fetch(`${api.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', checks: { database: 'up', redis: backend === 'mysql' ? 'up' : 'in-process' } });
  });

  it('GET /v1/openapi.json serves the committed OpenAPI document', async () => {
    const res = await fetch(`${api.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = await res.json();
    expect(doc).toEqual(JSON.parse(readFileSync(new URL('../../schema/openapi.json', import.meta.url), 'utf8')));
  });
});

describe('the OpenAPI document', () => {
  let doc: any;
  beforeAll(async () => { doc = await (await fetch(`${api.url}/v1/openapi.json`)).json(); });

  it('names the operations as the spec does, and ours beside them (events, webhooks), and no others', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item as object).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`));
    expect(operations.sort()).toEqual([
      'DELETE /pets/{petId} deletePet', 'GET /pets listPets', 'GET /pets/{petId} getPet', 'GET /rate_limit getRateLimit', 'GET /store/orders listOrders',
      'GET /store/orders/{orderId} getOrder', 'PATCH /pets/{petId} updatePet', 'PATCH /store/orders/{orderId} updateOrder',
      'POST /pets createPet', 'POST /store/orders placeOrder',
      // Beyond the spec, additive.
      'DELETE /webhooks/{endpointId} deleteWebhookEndpoint', 'GET /events listEvents', 'GET /webhooks listWebhookEndpoints',
      'GET /webhooks/{endpointId} getWebhookEndpoint', 'GET /webhooks/{endpointId}/deliveries listWebhookDeliveries',
      'PATCH /webhooks/{endpointId} updateWebhookEndpoint', 'POST /webhooks createWebhookEndpoint',
      'POST /webhooks/{endpointId}/deliveries/{deliveryId}/redeliver redeliverWebhook', 'POST /webhooks/{endpointId}/test testWebhookEndpoint',
    ].sort());
    expect(doc.servers).toEqual([{ url: '/v1' }]);
  });

  it('documents the store: 409s, PATCH bodies in both media types, a 204 without content', () => {
    const update = doc.paths['/store/orders/{orderId}'].patch;
    expect(Object.keys(update.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '409', '413', '415', '429']));
    expect(Object.keys(update.requestBody.content).sort()).toEqual(['application/json', 'application/merge-patch+json']);
    expect(update.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/OrderChange' });
    const place = doc.paths['/store/orders'].post;
    expect(Object.keys(place.responses)).toEqual(expect.arrayContaining(['201', '404', '409']));
    expect(place.responses['201'].headers.Location).toBeDefined();
    const remove = doc.paths['/pets/{petId}'].delete;
    expect(remove.responses['204'].content).toBeUndefined();
    expect(Object.keys(remove.responses)).toEqual(expect.arrayContaining(['204', '404', '409']));
    expect(remove.requestBody).toBeUndefined();
    expect(Object.keys(doc.components.schemas.Order.properties).sort()).toEqual(['complete', 'id', 'petId', 'placedAt', 'status']);
    expect(Object.keys(doc.components.schemas.Pet.properties).sort()).toEqual(['categoryId', 'id', 'name', 'status']);
    expect(doc.components.schemas.PetChange.additionalProperties).toBe(false);
  });

  it('marks getPet deprecated and createPet as 201 taking a NewPet body', () => {
    expect(doc.paths['/pets/{petId}'].get.deprecated).toBe(true);
    const create = doc.paths['/pets'].post;
    expect(Object.keys(create.responses)).toContain('201');
    expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/NewPet' });
    // Only the optional Idempotency-Key header: the body's fields are not parameters too.
    expect(create.parameters.map((p: { name: string; in: string; required: boolean }) => [p.name, p.in, p.required])).toEqual([['Idempotency-Key', 'header', false]]);
  });

  it('describes the Error body, bearer auth, the error statuses and the rate-limit headers', () => {
    expect(doc.components.schemas.Error.required).toEqual(['code', 'message', 'status']);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    for (const [path, method, statuses] of [['/pets', 'get', ['400', '401', '429']], ['/pets', 'post', ['400', '401', '413', '415', '429']],
      ['/pets/{petId}', 'get', ['400', '401', '404', '429']]] as const) {
      const responses = doc.paths[path][method].responses;
      expect(Object.keys(responses)).toEqual(expect.arrayContaining([...statuses]));
      const success = Object.values(responses)[0] as { headers: object };
      expect(Object.keys(success.headers)).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']));
    }
    expect(doc.components.responses.TooManyRequests.headers).toHaveProperty('Retry-After');
    expect(doc.paths['/pets'].post.responses['201'].headers.Location).toEqual({ $ref: '#/components/headers/Location' });
    for (const [status, name] of [['408', 'RequestTimeout'], ['431', 'HeadersTooLarge']] as const) {
      expect(doc.paths['/pets'].get.responses[status]).toEqual({ $ref: `#/components/responses/${name}` });
    }
  });

  it('gives limit its range and default, and NewPet its optional status', () => {
    const limit = doc.paths['/pets'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    expect(doc.components.schemas.NewPet.required).toEqual(['categoryId', 'name']);
    expect(doc.components.schemas.NewPet.properties.status.default).toBe('available');
    expect(doc.components.schemas.Pet.properties.id).toMatchObject({ type: 'integer', format: 'int64', maximum: 9007199254740991 });
  });
});
