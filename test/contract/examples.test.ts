import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlExample } from '../../examples/graphql-client.js';
import { restExample } from '../../examples/rest-client.js';
import { startReceiver, type ReceivedEvent } from '../../examples/webhook-receiver.js';
import { startServer, type TestServer } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let api: TestServer;
let apiKey: string;
beforeAll(async () => {
  // The webhook receiver example listens on loopback over http, as while developing.
  api = await startServer({ env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  apiKey = api.headers.authorization!.replace(/^Bearer /, '');
});
afterAll(async () => { await api?.close(); });

const pet = (name: string) => ({ id: expect.any(Number), name, categoryId: 1, status: 'pending' });

/** An example as its README runs it: its own process, settings from the environment. */
function runExample(file: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, env: { PATH: process.env.PATH, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
  });
}

describe('examples/rest-client.ts', () => {
  it('creates, lists, fetches with the deprecated getPet, and gets a typed BAD_REQUEST', async () => {
    const summary = await restExample(api.url, apiKey);
    expect(summary.created).toEqual(pet('Rex (REST example)'));
    expect(Number.isInteger(summary.created.id)).toBe(true);
    expect(summary.listed).toEqual({ count: expect.any(Number), includesCreated: true });
    expect(summary.fetched).toEqual(summary.created);
    expect(summary.feed).toEqual({ type: 'pet.created', pet: summary.created });
    expect(summary.webhook).toEqual({ secret: 'whsec_', types: ['pet.created', 'pet.deleted'], listed: true, deleted: 204 });
    expect(summary.deprecated).toEqual({ deprecation: expect.stringMatching(/^@\d+$/), sunset: expect.stringMatching(/ 2030 /) });
    expect(summary.error).toEqual({ httpStatus: 400, code: 'BAD_REQUEST', message: expect.stringContaining('limit') });
    expect(summary.problem).toEqual({
      contentType: 'application/problem+json', type: 'about:blank', title: 'Bad Request', code: 'BAD_REQUEST', instanceIsRequestId: true,
    });
    expect(summary.sale).toEqual({
      placed: 'placed', location: expect.stringMatching(/^\/v1\/store\/orders\/\d+$/),
      delivered: { status: 'delivered', complete: true }, petStatus: 'sold', orderingAgain: 'CONFLICT',
    });
  });
});

describe('examples/graphql-client.ts', () => {
  it('creates, lists, fetches with the deprecated pet field, and gets a BAD_REQUEST code', async () => {
    const summary = await graphqlExample(api.url, apiKey);
    expect(summary.created).toEqual(pet('Rex (GraphQL example)'));
    expect(Number.isInteger(summary.created.id)).toBe(true);
    expect(summary.listed).toEqual({ count: expect.any(Number), includesCreated: true });
    expect(summary.fetched).toEqual(summary.created);
    expect(summary.error).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('limit') });
    expect(summary.deprecated).toEqual([{ field: 'Query.pet', sunset: '2030-12-05T00:00:00Z' }]);
    expect(summary.orderEvents).toEqual(['order.created placed', 'order.updated approved', 'order.updated delivered']);
    expect(summary.webhook).toEqual({ secret: 'whsec_', types: ['order.created', 'order.updated'], deleted: true });
    expect(summary.sale).toEqual({
      placed: 'placed', petWhenPlaced: 'pending', delivered: { status: 'delivered', complete: true },
      petStatus: 'sold', petOrders: 1, orderingAgain: 'CONFLICT',
    });
  });

  it('sees the pet the REST example created: one store behind both', async () => {
    const rest = await restExample(api.url, apiKey);
    const gql = await graphqlExample(api.url, apiKey);
    expect(gql.listed.count).toBeGreaterThanOrEqual(rest.listed.count + 1);
  });
});

describe('examples/webhook-receiver.ts', () => {
  it('takes each signed event once, and refuses a request whose signature does not verify', async () => {
    const heard: ReceivedEvent[] = [];
    const made = await api.post('/v1/webhooks', { url: 'http://127.0.0.1:1/', types: ['pet.created'] });
    const server = await startReceiver(made.body.secret, 0, (event) => heard.push(event));
    try {
      const { port } = server.address() as { port: number };
      await api.patch(`/v1/webhooks/${made.body.id}`, { url: `http://127.0.0.1:${port}/hooks` });
      const pet = (await api.post('/v1/pets', { name: 'Heard by the example', categoryId: 1 })).body;
      await expect.poll(() => heard.length, { timeout: 3_000, interval: 50 }).toBe(1);
      expect(heard[0]).toMatchObject({ id: expect.stringMatching(/^msg_\d+$/), type: 'pet.created', data: { kind: 'CREATED', pet } });
      // Sent again (a redelivery): acknowledged, not handled twice.
      const [delivery] = (await api.get(`/v1/webhooks/${made.body.id}/deliveries`)).body;
      await api.post(`/v1/webhooks/${made.body.id}/deliveries/${delivery.id}/redeliver`, undefined);
      await expect.poll(async () => (await api.get(`/v1/webhooks/${made.body.id}/deliveries`)).body[0].attempts, { timeout: 3_000, interval: 50 }).toBe(2);
      expect(heard).toHaveLength(1);
      const forged = await fetch(`http://127.0.0.1:${port}/hooks`, {
        method: 'POST', body: '{"type":"pet.deleted"}',
        headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
      });
      expect(forged.status).toBe(400);
      expect(heard).toHaveLength(1);
    } finally {
      server.close();
    }
  });
});

describe('running an example directly', () => {
  it.each(['examples/rest-client.ts', 'examples/graphql-client.ts'])('%s prints its summary as JSON', async (file) => {
    const result = await runExample(file, { API_URL: api.url, API_KEY: apiKey });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ created: { id: expect.any(Number) }, error: { code: 'BAD_REQUEST' } });
  });

  it.each(['examples/rest-client.ts', 'examples/graphql-client.ts'])('%s refuses to run without API_KEY', async (file) => {
    const result = await runExample(file, { API_URL: api.url });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('API_KEY is not set');
    expect(result.stdout).toBe('');
  });

  it.each(['examples/rest-client.ts', 'examples/graphql-client.ts'])('%s exits non-zero on a refused key', async (file) => {
    const result = await runExample(file, { API_URL: api.url, API_KEY: 'ask_not-a-key' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/UNAUTHENTICATED/);
  });

  it.each(['examples/rest-client.ts', 'examples/graphql-client.ts'])('%s exits non-zero naming the scope a restricted key lacks', async (file) => {
    const { key } = await api.newKey('free', {}, 'pets:read');
    const result = await runExample(file, { API_URL: api.url, API_KEY: key });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/FORBIDDEN.*pets:write/);
  });
});
