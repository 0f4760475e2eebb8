import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_URL_MAX } from '../../src/domain/webhooks.js';
import { backend, openStore } from '../support/backend.js';
import { rateLimited } from '../support/rate-limited.js';
import { startServer, type TestServer } from '../support/server.js';
import { webhookReceiver } from '../support/webhook-receiver.js';

/** The default settings (https only, public addresses only) but room for more endpoints. Targets are public address literals (nothing to resolve). */
let api: TestServer;
let db: DataSource;
beforeAll(async () => {
  api = await startServer({ env: { WEBHOOKS_PER_KEY: '50' } });
  db = await openStore(api.store);
});
afterAll(async () => {
  await db?.destroy();
  await api?.close();
});

/** Events that these tests never cause: no delivery goes to a public address from here. */
const QUIET = ['order.updated'];
const CREATE = 'mutation($input: NewWebhookEndpoint!) { createWebhookEndpoint(input: $input) { id url } }';
const UPDATE = 'mutation($id: SafeInt!, $input: WebhookEndpointChange!) { updateWebhookEndpoint(endpointId: $id, input: $input) { id url } }';

/** 2,023 characters as sent, 12,023 once normalized: each é is percent-encoded as %C3%A9. */
const SWOLLEN = `https://93.184.215.14/${'é'.repeat(2_000)}/`;
const swollenRefusal = `"url" must be at most ${WEBHOOK_URL_MAX} characters once normalized (percent-encoded), and is 12023`;

describe('webhook URL length, measured as stored', () => {
  it('refuses a URL that percent-encoding takes past the limit with 400 BAD_REQUEST, on create and update, on both surfaces', async () => {
    expect(SWOLLEN.length).toBe(2_023);
    const created = await api.post('/v1/webhooks', { url: SWOLLEN, types: QUIET });
    expect(created.status).toBe(400);
    expect(created.headers.get('content-type')).toMatch(/^application\/json/);
    expect(created.body).toEqual({ code: 'BAD_REQUEST', status: 400, message: swollenRefusal });
    rateLimited(created.headers);

    const { id } = (await api.post('/v1/webhooks', { url: 'https://93.184.215.14/short', types: QUIET })).body as { id: number };
    const updated = await api.patch(`/v1/webhooks/${id}`, { url: SWOLLEN });
    expect(updated.status).toBe(400);
    expect(updated.body).toEqual({ code: 'BAD_REQUEST', status: 400, message: swollenRefusal });
    rateLimited(updated.headers);

    for (const [query, variables] of [[CREATE, { input: { url: SWOLLEN, types: QUIET } }], [UPDATE, { id, input: { url: SWOLLEN } }]] as const) {
      const reply = await api.gql(query, variables);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ data: null, errors: [expect.objectContaining({ message: swollenRefusal, extensions: { code: 'BAD_REQUEST', status: 400 } })] });
      rateLimited(reply.headers);
    }
    expect((await api.get(`/v1/webhooks/${id}`)).body.url).toBe('https://93.184.215.14/short');
  });

  it('takes a URL exactly at the limit once normalized, stores it whole, and refuses one character more', async () => {
    const base = 'https://93.184.215.14/';
    const fill = (n: number) => `${base}${'é'.repeat(Math.floor((n - base.length) / 6))}${'a'.repeat((n - base.length) % 6)}`;
    const exact = await api.post('/v1/webhooks', { url: fill(WEBHOOK_URL_MAX), types: QUIET });
    expect(exact.status).toBe(201);
    expect(exact.body.url).toHaveLength(WEBHOOK_URL_MAX);
    expect((await api.get(`/v1/webhooks/${exact.body.id}`)).body.url).toBe(exact.body.url);
    const over = await api.post('/v1/webhooks', { url: fill(WEBHOOK_URL_MAX + 1), types: QUIET });
    expect(over.body).toEqual({
      code: 'BAD_REQUEST', status: 400, message: `"url" must be at most ${WEBHOOK_URL_MAX} characters once normalized (percent-encoded), and is ${WEBHOOK_URL_MAX + 1}`,
    });
  });

  it.runIf(backend === 'mysql')('has a url column that holds the limit', async () => {
    const [column] = await db.query(
      'SELECT CHARACTER_MAXIMUM_LENGTH AS size FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?',
      ['webhook_endpoints', 'url'],
    ) as { size: number }[];
    expect(Number(column!.size)).toBeGreaterThanOrEqual(WEBHOOK_URL_MAX);
  });
});

/** The IPv6 forms that lead to IPv4, or to space that is not public: one address of each class. */
const IPV6_CLASSES: [host: string, what: string][] = [
  ['[::7f00:1]', 'an IPv4-compatible address'],
  ['[::ffff:0:7f00:1]', 'an IPv4-translated (SIIT) address'],
  ['[::ffff:7f00:1]', 'an IPv4-mapped address'],
  ['[64:ff9b:1::7f00:1]', 'a NAT64 address'],
  ['[2001:0:4136:e378:8000:63bf:80ff:fffe]', 'a Teredo address'],
  ['[2002:7f00:1::1]', 'a 6to4 address'],
  ['[fec0::1]', 'a site-local address'],
  ['[3fff::1]', 'a documentation address'],
  ['[5f00::1]', 'a reserved address'],
];

describe('IPv6 targets that reach IPv4 or space that is not public', () => {
  it.each(IPV6_CLASSES)('refuses https://%s/ at creation and update (%s) with 400 BAD_REQUEST, on both surfaces', async (host, what) => {
    const message = `"url" points to ${what} (${host.slice(1, -1)}): webhooks go to public addresses only`;
    const created = await api.post('/v1/webhooks', { url: `https://${host}/hooks` });
    expect(created.status).toBe(400);
    expect(created.body).toEqual({ code: 'BAD_REQUEST', status: 400, message });
    rateLimited(created.headers);
    const { id } = (await api.post('/v1/webhooks', { url: 'https://93.184.215.14/', types: QUIET })).body as { id: number };
    expect((await api.patch(`/v1/webhooks/${id}`, { url: `https://${host}/` })).body).toEqual({ code: 'BAD_REQUEST', status: 400, message });
    const gql = await api.gql(CREATE, { input: { url: `https://${host}/` } });
    expect(gql.body.errors[0]).toMatchObject({ message, extensions: { code: 'BAD_REQUEST', status: 400 } });
    await api.del(`/v1/webhooks/${id}`);
  });

  it('refuses each at connect time, when the stored URL changed behind the API\'s back, and sends nothing', async () => {
    const hooks = await webhookReceiver();
    try {
      const { port } = new URL(hooks.url);
      const ids: number[] = [];
      for (const [host] of IPV6_CLASSES) {
        const { id } = (await api.post('/v1/webhooks', { url: 'https://93.184.215.14/', types: ['pet.created'] })).body as { id: number };
        await db.query('UPDATE webhook_endpoints SET url = ? WHERE id = ?', [`https://${host}:${port}/`, id]);
        ids.push(id);
      }
      await api.post('/v1/pets', { name: 'Not for IPv4 in disguise', categoryId: 1 });
      const lastErrors = async () => Promise.all(ids.map(async (id) => (await api.get(`/v1/webhooks/${id}/deliveries`)).body[0]?.lastError ?? null));
      await expect.poll(lastErrors, { timeout: 15_000, interval: 100 }).toEqual(IPV6_CLASSES.map(([host, what]) => `refused: ${host} is ${what}`));
      expect(hooks.received).toHaveLength(0);
      for (const id of ids) await api.del(`/v1/webhooks/${id}`);
    } finally {
      await hooks.close();
    }
  }, 30_000);
});
