import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
beforeAll(async () => { api = await startServer(); });
afterAll(async () => { await api?.close(); });

const policyOf = async (path: string, headers: Record<string, string> = {}) =>
  (await fetch(`${api.url}${path}`, { headers })).headers.get('content-security-policy');

const directives = (policy: string) => new Map(policy.split('; ').map((d) => {
  const [name, ...sources] = d.split(' ');
  return [name!, sources];
}));

describe('Content-Security-Policy on the browser pages', () => {
  it('gives GraphiQL a policy that allows its own inline scripts by hash, and nothing from elsewhere', async () => {
    const policy = directives((await policyOf('/graphql', { accept: 'text/html' }))!);
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('script-src')).toHaveLength(2);
    for (const source of policy.get('script-src')!) expect(source).toMatch(/^'sha256-[A-Za-z0-9+/]{43}='$/);
    expect(policy.get('connect-src')).toEqual(["'self'"]);
    expect(policy.get('worker-src')).toEqual(['blob:']);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect([...policy.values()].flat()).not.toContain("'unsafe-eval'");
  });

  it('gives the docs page a policy with no inline script at all', async () => {
    const policy = directives((await policyOf('/v1/docs'))!);
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('connect-src')).toEqual(["'self'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    const initializer = await fetch(`${api.url}/v1/docs/swagger-initializer.js`);
    expect(initializer.status).toBe(200);
    expect(initializer.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await initializer.text()).toContain("url: 'openapi.json'");
    expect(await (await fetch(`${api.url}/v1/docs`)).text()).not.toMatch(/<script>/);
  });

  it('keeps it off JSON answers, which no browser renders as a page', async () => {
    expect(await policyOf('/v1/pets', api.headers)).toBeNull();
    expect(await policyOf('/v1/openapi.json')).toBeNull();
    expect(await policyOf('/healthz')).toBeNull();
  });
});
