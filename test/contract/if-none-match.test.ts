import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IF_NONE_MATCH_MAX_LENGTH } from '../../src/pipeline/use-request-checks.js';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
beforeAll(async () => { api = await startServer(); });
afterAll(async () => { await api?.close(); });

/** A list of tags (none of them an answer's) exactly `length` characters long. */
const tags = (length: number) => `"${'x'.repeat(length - 2)}"`;
const refusal = `If-None-Match must be at most ${IF_NONE_MATCH_MAX_LENGTH} characters: send the ETags of the answers you hold`;

describe('If-None-Match, bounded as the OpenAPI document declares it', () => {
  it(`takes one of ${IF_NONE_MATCH_MAX_LENGTH} characters (no tag of it matches: the full answer)`, async () => {
    const res = await api.get('/v1/pets?limit=1', { 'if-none-match': tags(IF_NONE_MATCH_MAX_LENGTH) });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(/^"[\w-]+"$/);
  });

  it.each(['GET', 'HEAD'])('refuses a longer one on a REST %s with 400 BAD_REQUEST in the Error shape, the limit headers and all', async (method) => {
    const res = await fetch(`${api.url}/v1/pets?limit=1`, { method, headers: { ...api.headers, 'if-none-match': tags(IF_NONE_MATCH_MAX_LENGTH + 1) } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    const text = await res.text();
    if (method === 'GET') expect(JSON.parse(text)).toEqual({ code: 'BAD_REQUEST', message: refusal, status: 400 });
    else expect(text).toBe('');
  });

  it('refuses a longer one on a GraphQL GET in the GraphQL shape', async () => {
    const res = await api.get(`/graphql?query=${encodeURIComponent('{ pets(limit: 1) { id } }')}`, { 'if-none-match': tags(IF_NONE_MATCH_MAX_LENGTH + 1) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{ message: refusal, extensions: { code: 'BAD_REQUEST', status: 400 } }] });
  });

  it('ignores it on a POST, whatever its length, as it ignores the field there', async () => {
    const res = await api.post('/v1/pets', { name: 'Rex', categoryId: 1 }, { 'if-none-match': tags(IF_NONE_MATCH_MAX_LENGTH * 2) });
    expect(res.status).toBe(201);
  });

  it('is declared on every GET of the served OpenAPI document with that maxLength', async () => {
    const document = (await api.get('/v1/openapi.json')).body as { paths: Record<string, Record<string, { parameters?: { name: string; schema: unknown }[] }>> };
    const gets = Object.values(document.paths).flatMap((item) => (item.get ? [item.get] : []));
    expect(gets.length).toBeGreaterThan(5);
    for (const get of gets) {
      expect(get.parameters?.find((p) => p.name === 'If-None-Match')?.schema).toEqual({ type: 'string', minLength: 1, maxLength: IF_NONE_MATCH_MAX_LENGTH });
    }
  });
});
