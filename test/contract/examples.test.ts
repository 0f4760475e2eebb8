import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlExample } from '../../examples/graphql-client.js';
import { restExample } from '../../examples/rest-client.js';
import { startServer, type TestServer } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let api: TestServer;
let apiKey: string;
beforeAll(async () => {
  api = await startServer();
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
    expect(summary.deprecated).toEqual({ deprecation: expect.stringMatching(/^@\d+$/), sunset: expect.stringMatching(/ 2030 /) });
    expect(summary.error).toEqual({ httpStatus: 400, code: 'BAD_REQUEST', message: expect.stringContaining('limit') });
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
    expect(summary.orderEvents).toEqual(['order.created placed', 'order.updated approved', 'order.updated delivered']);
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
});
