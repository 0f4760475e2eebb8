import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, openStore } from '../support/backend.js';
import { rateLimited } from '../support/rate-limited.js';
import { startServer, type TestServer } from '../support/server.js';

/** Where a server keeps its Idempotency-Key records: Redis when it has one, else its database (both on MySQL). */
const RECORD_STORES: [where: string, env: Record<string, string>][] = backend === 'mysql'
  ? [['Redis', {}], ['the database', { REDIS_URL: '' }]]
  : [['the database', {}]];

let n = 0;
const fresh = () => `hook-${Date.now()}-${(n += 1)}`;
const SECRET = /whsec_/;

describe.each(RECORD_STORES)('a webhook secret and Idempotency-Key records in %s', (where, env) => {
  let api: TestServer;
  let db: DataSource;
  let redis: Redis | undefined;
  let owner: { id: number; auth: Record<string, string> };
  beforeAll(async () => {
    api = await startServer({ env: { ...env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    db = await openStore(api.store);
    redis = where === 'Redis' ? new Redis(process.env.TEST_REDIS_URL!) : undefined;
    owner = await api.newKey('pro');
  });
  afterAll(async () => {
    redis?.disconnect();
    await db?.destroy();
    await api?.close();
  });

  /** The record kept for this Idempotency-Key of the owner, as stored (read behind the server's back). */
  const record = async (given: string): Promise<string> => {
    const id = createHash('sha256').update(`${owner.id}\n${given}`).digest('hex');
    if (redis) return (await redis.get(`${api.config.redisPrefix}:idempotency:${id}`))!;
    const [row] = await db.query('SELECT fingerprint, response FROM idempotency_records WHERE id = ?', [id]) as { response: string }[];
    return JSON.stringify(row);
  };
  const headers = (given: string) => ({ ...owner.auth, 'idempotency-key': given });

  it('keeps no secret in the record of POST /v1/webhooks, and a replay answers the first answer whole, secret included', async () => {
    const given = fresh();
    const input = { url: 'https://kept.example.com/hooks', types: ['pet.created'] };
    const first = await api.post('/v1/webhooks', input, headers(given));
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_/);
    const kept = await record(given);
    expect(kept).toContain('https://kept.example.com/hooks');
    expect(kept).not.toMatch(SECRET);
    expect(kept).not.toContain(first.body.secret.slice('whsec_'.length));

    const again = await api.post('/v1/webhooks', input, headers(given));
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    rateLimited(again.headers);
    expect((await api.get('/v1/webhooks', owner.auth)).body.filter((e: { url: string }) => e.url === input.url)).toHaveLength(1);
  });

  it('keeps none of the secrets a GraphQL mutation shows (aliases, twice each), and replays the same answer', async () => {
    const given = fresh();
    const query = 'mutation { a: createWebhookEndpoint(input: { url: "https://a.example.com/" }) { id secret again: secret } '
      + 'b: createWebhookEndpoint(input: { url: "https://b.example.com/" }) { secret id } }';
    const first = await api.gql(query, undefined, headers(given));
    expect(first.status).toBe(200);
    expect(first.body.data.a.again).toBe(first.body.data.a.secret);
    expect(first.body.data.b.secret).not.toBe(first.body.data.a.secret);
    expect(await record(given)).not.toMatch(SECRET);

    const again = await api.gql(query, undefined, headers(given));
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await api.get('/v1/webhooks', owner.auth)).body.filter((e: { url: string }) => /^https:\/\/[ab]\.example\.com\/$/.test(e.url))).toHaveLength(2);
  });

  it('answers a replay 409 CONFLICT once the endpoint it made is deleted (its secret is gone), on both surfaces, and makes none', async () => {
    const given = fresh();
    const input = { url: 'https://gone.example.com/' };
    const { id } = (await api.post('/v1/webhooks', input, headers(given))).body as { id: number };
    expect((await api.del(`/v1/webhooks/${id}`, owner.auth)).status).toBe(204);
    const message = `The webhook endpoint this Idempotency-Key created (${id}) has been deleted since, and its secret with it: `
      + 'the first answer cannot be given again; use a new key for a new request';

    const again = await api.post('/v1/webhooks', input, headers(given));
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(again.body).toEqual({ code: 'CONFLICT', status: 409, message });
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    rateLimited(again.headers);

    const graphGiven = fresh();
    const query = 'mutation { createWebhookEndpoint(input: { url: "https://gone.example.com/graph" }) { id secret } }';
    const made = await api.gql(query, undefined, headers(graphGiven));
    const graphId = made.body.data.createWebhookEndpoint.id as number;
    await api.del(`/v1/webhooks/${graphId}`, owner.auth);
    const graphAgain = await api.gql(query, undefined, headers(graphGiven));
    expect(graphAgain.status).toBe(409);
    expect(graphAgain.body).toEqual({ errors: [{ message: message.replace(`(${id})`, `(${graphId})`), extensions: { code: 'CONFLICT', status: 409 } }] });
    rateLimited(graphAgain.headers);
    expect((await api.get('/v1/webhooks', owner.auth)).body.filter((e: { url: string }) => e.url.startsWith('https://gone.example.com/'))).toEqual([]);
  });
});
