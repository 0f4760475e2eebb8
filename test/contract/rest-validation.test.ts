import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

let api: TestServer;
beforeAll(async () => { api = await startServer(); });
afterAll(async () => { await api?.close(); });

/** Every 400 is the Error body, JSON, naming what to fix. */
function expectBadRequest(res: { status: number; headers: Headers; body: unknown }, mentions: string) {
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining(mentions), status: 400 });
}

describe('GET /v1/pets with bad parameters', () => {
  const badLimits = ['0', '101', 'abc', '1.5', '-1', '1e1', '%201'];
  it.each(badLimits)('rejects limit=%s with 400 BAD_REQUEST naming "limit"', async (limit) => {
    expectBadRequest(await api.get(`/v1/pets?limit=${limit}`), '"limit"');
  });

  it('rejects a repeated limit with 400 BAD_REQUEST naming "limit"', async () => {
    expectBadRequest(await api.get('/v1/pets?limit=1&limit=2'), '"limit"');
  });

  it.each(['bogus', 'AVAILABLE', 'Available'])('rejects status=%s with 400 BAD_REQUEST naming "status"', async (status) => {
    expectBadRequest(await api.get(`/v1/pets?status=${status}`), '"status"');
  });
});

describe('GET /v1/pets/{petId} with a bad id', () => {
  it.each(['abc', '0', '-1', '1.5', '9007199254740992', '1e3', '0x10'])(
    'rejects petId=%s with 400 BAD_REQUEST naming "petId"',
    async (petId) => { expectBadRequest(await api.get(`/v1/pets/${petId}`), '"petId"'); },
  );
});

describe('POST /v1/pets with a bad body', () => {
  const valid = { name: 'Rex', categoryId: 1 };
  const badBodies: [string, unknown, string][] = [
    ['missing name', { categoryId: 1 }, '"name"'],
    ['missing categoryId', { name: 'Rex' }, '"categoryId"'],
    // Both fields are missing: the answer names the first one the schema has.
    ['an empty object', {}, 'Missing required field "categoryId"'],
    ['categoryId as a string', { ...valid, categoryId: '5' }, '"categoryId"'],
    ['categoryId 1.5', { ...valid, categoryId: 1.5 }, '"categoryId"'],
    ['categoryId 0', { ...valid, categoryId: 0 }, '"categoryId"'],
    ['categoryId -1', { ...valid, categoryId: -1 }, '"categoryId"'],
    ['categoryId 2^53', { ...valid, categoryId: 9007199254740992 }, '"categoryId"'],
    ['categoryId null', { ...valid, categoryId: null }, '"categoryId"'],
    ['name as a number', { ...valid, name: 5 }, '"name"'],
    ['name of 256 characters', { ...valid, name: 'x'.repeat(256) }, '"name"'],
    ['name of 256 emoji', { ...valid, name: '🐶'.repeat(256) }, '"name"'],
    ['an empty name', { ...valid, name: '' }, '"name"'],
    ['a blank name', { ...valid, name: ' \t ' }, '"name"'],
    ['a control character in name', { ...valid, name: 'Re\u0000x' }, '"name"'],
    ['a newline in name', { ...valid, name: 'Re\nx' }, '"name"'],
    ['a lone surrogate in name', { ...valid, name: 'Re\ud800x' }, '"name"'],
    ['status outside the enum', { ...valid, status: 'lost' }, '"status"'],
    ['status null', { ...valid, status: null }, '"status"'],
    ['an unknown field', { ...valid, color: 'brown' }, '"color"'],
    ['an id', { ...valid, id: 7 }, '"id"'],
  ];
  it.each(badBodies)('rejects %s with 400 BAD_REQUEST naming the field', async (_case, body, mentions) => {
    expectBadRequest(await api.post('/v1/pets', body), mentions);
  });

  it.each([['an array', '[]'], ['null', 'null'], ['a string', '"Rex"'], ['a number', '5']])(
    'rejects %s as the body with 400 BAD_REQUEST', async (_case, body) => {
      const res = await fetch(`${api.url}/v1/pets`, { method: 'POST', headers: { ...api.headers, 'content-type': 'application/json' }, body });
      expectBadRequest({ status: res.status, headers: res.headers, body: await res.json() }, 'JSON object');
    },
  );

  it('stores nothing when it rejects', async () => {
    const before = await api.get('/v1/pets?limit=100');
    await api.post('/v1/pets', { name: 'Ghost', categoryId: 1, id: 99 });
    await api.post('/v1/pets', { name: 'x'.repeat(256), categoryId: 1 });
    const after = await api.get('/v1/pets?limit=100');
    expect(after.body).toEqual(before.body);
  });
});
