import { describe, expect, it } from 'vitest';
import { RECORD_STORES, recordsUnderTest } from '../support/idempotency-records.js';
import { rateLimited } from '../support/rate-limited.js';

let n = 0;
const fresh = () => `hook-${Date.now()}-${(n += 1)}`;
const SECRET = /whsec_/;

describe.each(RECORD_STORES)('a webhook secret and Idempotency-Key records in %s', (where, env) => {
  const under = recordsUnderTest(where, { ...env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });

  /** The record kept for this Idempotency-Key of the owner, as stored (read behind the server's back). */
  const record = async (given: string): Promise<string> => {
    if (under.redis) return (await under.redis.get(under.redisKey(given)))!;
    const [row] = await under.db.query('SELECT fingerprint, response FROM idempotency_records WHERE id = ?', [under.recordId(given)]) as { response: string }[];
    return JSON.stringify(row);
  };
  const headers = (given: string) => ({ ...under.owner.auth, 'idempotency-key': given });

  it('keeps no secret in the record of POST /v1/webhooks, and a replay answers the first answer whole, secret included', async () => {
    const given = fresh();
    const input = { url: 'https://kept.example.com/hooks', types: ['pet.created'] };
    const first = await under.api.post('/v1/webhooks', input, headers(given));
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_/);
    const kept = await record(given);
    expect(kept).toContain('https://kept.example.com/hooks');
    expect(kept).not.toMatch(SECRET);
    expect(kept).not.toContain(first.body.secret.slice('whsec_'.length));

    const again = await under.api.post('/v1/webhooks', input, headers(given));
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    rateLimited(again.headers);
    expect((await under.api.get('/v1/webhooks', under.owner.auth)).body.filter((e: { url: string }) => e.url === input.url)).toHaveLength(1);
  });

  it('keeps none of the secrets a GraphQL mutation shows (aliases, twice each), and replays the same answer', async () => {
    const given = fresh();
    const query = 'mutation { a: createWebhookEndpoint(input: { url: "https://a.example.com/" }) { id secret again: secret } '
      + 'b: createWebhookEndpoint(input: { url: "https://b.example.com/" }) { secret id } }';
    const first = await under.api.gql(query, undefined, headers(given));
    expect(first.status).toBe(200);
    expect(first.body.data.a.again).toBe(first.body.data.a.secret);
    expect(first.body.data.b.secret).not.toBe(first.body.data.a.secret);
    expect(await record(given)).not.toMatch(SECRET);

    const again = await under.api.gql(query, undefined, headers(given));
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await under.api.get('/v1/webhooks', under.owner.auth)).body.filter((e: { url: string }) => /^https:\/\/[ab]\.example\.com\/$/.test(e.url))).toHaveLength(2);
  });

  it('answers a replay 409 CONFLICT once the endpoint it made is deleted (its secret is gone), on both surfaces, and makes none', async () => {
    const given = fresh();
    const input = { url: 'https://gone.example.com/' };
    const { id } = (await under.api.post('/v1/webhooks', input, headers(given))).body as { id: number };
    expect((await under.api.del(`/v1/webhooks/${id}`, under.owner.auth)).status).toBe(204);
    const message = `The webhook endpoint this Idempotency-Key created (${id}) has been deleted since, and its secret with it: `
      + 'the first answer cannot be given again; use a new key for a new request';

    const again = await under.api.post('/v1/webhooks', input, headers(given));
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(again.body).toEqual({ code: 'CONFLICT', status: 409, message });
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    rateLimited(again.headers);

    const graphGiven = fresh();
    const query = 'mutation { createWebhookEndpoint(input: { url: "https://gone.example.com/graph" }) { id secret } }';
    const made = await under.api.gql(query, undefined, headers(graphGiven));
    const graphId = made.body.data.createWebhookEndpoint.id as number;
    await under.api.del(`/v1/webhooks/${graphId}`, under.owner.auth);
    const graphAgain = await under.api.gql(query, undefined, headers(graphGiven));
    expect(graphAgain.status).toBe(409);
    expect(graphAgain.body).toEqual({ errors: [{ message: message.replace(`(${id})`, `(${graphId})`), extensions: { code: 'CONFLICT', status: 409 } }] });
    rateLimited(graphAgain.headers);
    expect((await under.api.get('/v1/webhooks', under.owner.auth)).body.filter((e: { url: string }) => e.url.startsWith('https://gone.example.com/'))).toEqual([]);
  });
});
