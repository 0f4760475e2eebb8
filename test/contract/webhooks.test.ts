import { Webhook } from 'standardwebhooks';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeKey, rollKey } from '../../src/auth/key-admin.js';
import { apiKeyStore } from '../../src/db/api-keys.js';
import { backend, freshStore, keyOn, openStore } from '../support/backend.js';
import { testClock } from '../support/clock.js';
import { seriesValue } from '../support/metrics.js';
import { listeningUrl, spawnServer } from '../support/process.js';
import { startPair, startServer, type TestServer } from '../support/server.js';
import { silentReceiver, webhookReceiver } from '../support/webhook-receiver.js';

const LOOPBACK = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_TIMEOUT_SECONDS: '1', WEBHOOKS_PER_KEY: '50' };
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => { for (const cleanup of cleanups.reverse()) await cleanup(); });

let api: TestServer;
let db: DataSource;
/** A server with the default settings: https only, public addresses only, 10 endpoints a key. */
let strict: TestServer;
beforeAll(async () => {
  api = await startServer({ env: LOOPBACK });
  strict = await startServer();
  db = await openStore(api.store);
  cleanups.push(() => api.close(), () => strict.close(), () => db.destroy());
});

async function receiver() {
  const made = await webhookReceiver();
  cleanups.push(() => made.close());
  return made;
}
/** An endpoint of `server`'s default key (or `headers`'), made through REST. */
async function endpoint(server: TestServer, url: string, types?: string[], headers?: Record<string, string>) {
  const made = await server.post('/v1/webhooks', { url, ...(types ? { types } : {}) }, headers);
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body as { id: number; secret: string };
}
/** Verifies a received request with the Standard Webhooks library, as any receiver would; the payload. */
const verified = (secret: string, { headers, body }: { headers: Record<string, unknown>; body: string }) =>
  new Webhook(secret).verify(body, headers as Record<string, string>) as { type: string; timestamp: string; data: any };
const deliveries = async (server: TestServer, id: number) => (await server.get(`/v1/webhooks/${id}/deliveries`)).body as any[];
/** Asked until `check` holds, every 50 ms for up to 3 s: the dispatcher runs at least every second. */
const eventually = (check: () => Promise<unknown>) => expect.poll(check, { timeout: 3_000, interval: 50 });

describe('managing webhook endpoints', () => {
  it('creates (the secret shown once), lists, gets, changes and deletes, on both surfaces', async () => {
    const made = await api.post('/v1/webhooks', { url: 'https://hooks.example.com/in', types: ['pet.created', 'order.updated'] });
    expect(made.status).toBe(201);
    expect(made.headers.get('location')).toBe(`/v1/webhooks/${made.body.id}`);
    expect(made.body).toEqual({
      id: expect.any(Number), url: 'https://hooks.example.com/in', types: ['pet.created', 'order.updated'], enabled: true,
      disabledReason: null, createdAt: new Date(api.clock.now()).toISOString(), secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { secret, ...shown } = made.body;
    expect((await api.get(`/v1/webhooks/${shown.id}`)).body).toEqual(shown);
    expect((await api.get('/v1/webhooks')).body).toContainEqual(shown);
    const gql = await api.gql('{ webhookEndpoints { id url types enabled disabledReason createdAt } }');
    expect(gql.body.data.webhookEndpoints).toContainEqual(shown);
    expect(JSON.stringify(gql.body)).not.toContain(secret);

    const changed = await api.patch(`/v1/webhooks/${shown.id}`, { types: [], enabled: false });
    expect(changed.body).toEqual({ ...shown, types: [], enabled: false });
    const renamed = await api.gql('mutation($id: SafeInt!) { updateWebhookEndpoint(endpointId: $id, input: { url: "https://other.example.com/" }) { url enabled } }', { id: shown.id });
    expect(renamed.body.data.updateWebhookEndpoint).toEqual({ url: 'https://other.example.com/', enabled: false });

    expect((await api.del(`/v1/webhooks/${shown.id}`)).status).toBe(204);
    const gone = await api.get(`/v1/webhooks/${shown.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ code: 'NOT_FOUND', status: 404, message: `Webhook endpoint ${shown.id} not found` });
  });

  it('costs a point for each management call on either surface, and nothing for a delivery', async () => {
    const hooks = await receiver();
    const owner = await api.newKey('pro');
    const left = async () => (await api.get('/v1/rate_limit', owner.auth)).body.windows[0].remaining as number;
    const start = await left();
    const { id } = await endpoint(api, hooks.url, ['pet.created'], owner.auth);
    await api.get(`/v1/webhooks/${id}`, owner.auth);
    await api.gql('{ webhookEndpoints { id } }', undefined, owner.auth);
    expect(await left()).toBe(start - 3);
    // Deliveries of another key's changes, and a test event's delivery, are sent at no one's cost.
    await api.post('/v1/pets', { name: 'Free to deliver', categoryId: 1 });
    await api.post(`/v1/webhooks/${id}/test`, undefined, owner.auth);
    await hooks.waitFor(2);
    expect(await left()).toBe(start - 4);
  });

  it('keeps each key\'s endpoints its own: another key\'s is NOT_FOUND, and its list empty', async () => {
    const mine = await endpoint(api, 'https://mine.example.com/');
    const other = await api.newKey('pro');
    expect((await api.get('/v1/webhooks', other.auth)).body).toEqual([]);
    for (const reply of [
      await api.get(`/v1/webhooks/${mine.id}`, other.auth), await api.patch(`/v1/webhooks/${mine.id}`, { enabled: false }, other.auth),
      await api.del(`/v1/webhooks/${mine.id}`, other.auth), await api.post(`/v1/webhooks/${mine.id}/test`, undefined, other.auth),
    ]) {
      expect(reply.status).toBe(404);
      expect(reply.body.code).toBe('NOT_FOUND');
    }
    expect((await api.get(`/v1/webhooks/${mine.id}`)).status).toBe(200);
  });

  it('refuses bad input with 400 and a key\'s eleventh endpoint with 409', async () => {
    const refusals: [unknown, RegExp][] = [
      [{ url: 'not a url' }, /"url" must be an absolute URL/],
      [{ url: 'ftp://example.com/' }, /"url" must use https or http, got ftp/],
      [{ url: 'https://user:pw@example.com/' }, /user name or password/],
      [{ url: `https://example.com/${'a'.repeat(2_100)}` }, /at most 2048 characters/],
      // What the URL parser would mend, the OpenAPI document's pattern refuses, and so does the service.
      [{ url: 'https:example.com/' }, /"url" must be written out whole/],
      [{ url: ' https://example.com/' }, /"url" must be written out whole/],
      [{ url: 'https://example.com/', types: ['pet.sold'] }, /Expected an event type/],
      [{ url: 'https://example.com/', types: ['pet.created', 'pet.created'] }, /names an event type twice/],
      [{ url: 'https://example.com/', secret: 'mine' }, /secret/],
      [{}, /url/],
    ];
    for (const [body, message] of refusals) {
      const reply = await api.post('/v1/webhooks', body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body).toEqual({ code: 'BAD_REQUEST', status: 400, message: expect.stringMatching(message) });
      expect(reply.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    }
    const empty = await api.patch(`/v1/webhooks/${(await endpoint(api, 'https://e.example.com/')).id}`, {});
    expect(empty.body).toEqual({ code: 'BAD_REQUEST', status: 400, message: 'The change is empty: send at least one of "url", "types", "enabled"' });

    // At a public address, given as one (nothing to resolve).
    const full = await strict.newKey('pro');
    for (let i = 0; i < 10; i++) await endpoint(strict, `https://93.184.215.${i + 1}/`, undefined, full.auth);
    const eleventh = await strict.post('/v1/webhooks', { url: 'https://93.184.215.11/' }, full.auth);
    expect(eleventh.status).toBe(409);
    expect(eleventh.body).toEqual({ code: 'CONFLICT', status: 409, message: 'A key may have at most 10 webhook endpoints: delete one before adding another' });
  });

  it('refuses http, and every private, loopback, link-local and metadata address, where the service allows none (400)', async () => {
    expect((await strict.post('/v1/webhooks', { url: 'http://example.com/' })).body.message).toMatch(/must use https \(http is not allowed on this service\)/);
    const classes: [string, string][] = [
      ['https://127.0.0.1/', 'a loopback address'], ['https://[::1]/', 'a loopback address'], ['https://localhost:8443/', 'a loopback address'],
      ['https://10.1.2.3/', 'a private address'], ['https://172.16.0.9/', 'a private address'], ['https://192.168.1.1/', 'a private address'],
      ['https://[fd00::1]/', 'a private (unique local) address'], ['https://169.254.169.254/latest/meta-data/', 'a link-local address (where cloud metadata services answer)'],
      ['https://[fe80::1]/', 'a link-local address'], ['https://100.64.0.1/', 'a shared (carrier-grade NAT) address'], ['https://0.0.0.0/', 'an unspecified address'],
      ['https://[::ffff:127.0.0.1]/', 'an IPv4-mapped address'], ['https://224.0.0.1/', 'a multicast address'],
    ];
    for (const [url, what] of classes) {
      const reply = await strict.post('/v1/webhooks', { url });
      expect(reply.status, url).toBe(400);
      expect(reply.body.message, url).toMatch(new RegExp(`^"url" points to ${what.replace(/[()]/g, '\\$&')} \\(.+\\): webhooks go to public addresses only$`));
    }
    expect((await strict.post('/v1/webhooks', { url: 'https://no-such-host.invalid/' })).body.message).toBe('"url": the host no-such-host.invalid does not resolve');
    // A public address is taken.
    expect((await strict.post('/v1/webhooks', { url: 'https://93.184.215.14/hooks' })).status).toBe(201);
  });
});

describe('webhook delivery', () => {
  it('refuses at connect time a target that became private after its creation (DNS changed), and a literal one', async () => {
    const hooks = await receiver();
    const port = new URL(hooks.url).port;
    // Made when each pointed somewhere public (what DNS said then), and changed behind the API's back since.
    const strictDb = await openStore(strict.store);
    cleanups.push(() => strictDb.destroy());
    const byName = await endpoint(strict, 'https://93.184.215.20/', ['pet.created']);
    const byAddress = await endpoint(strict, 'https://93.184.215.21/', ['pet.created']);
    await strictDb.query('UPDATE webhook_endpoints SET url = ? WHERE id = ?', [`https://localhost:${port}/`, byName.id]);
    await strictDb.query('UPDATE webhook_endpoints SET url = ? WHERE id = ?', [`https://127.0.0.1:${port}/`, byAddress.id]);
    await strict.post('/v1/pets', { name: 'Not for loopback', categoryId: 1 });
    await eventually(async () => (await deliveries(strict, byName.id))[0]?.attempts).toBe(1);
    await eventually(async () => (await deliveries(strict, byAddress.id))[0]?.attempts).toBe(1);
    expect((await deliveries(strict, byName.id))[0]).toMatchObject({ status: 'pending', lastStatusCode: null, lastError: expect.stringMatching(/^refused: localhost resolves to a loopback address \((127\.0\.0\.1|::1)\)$/) });
    expect((await deliveries(strict, byAddress.id))[0]).toMatchObject({ status: 'pending', lastStatusCode: null, lastError: 'refused: 127.0.0.1 is a loopback address' });
    expect(hooks.received).toHaveLength(0);
  });

  it('POSTs each event of its types, signed as Standard Webhooks says, and records the delivery', async () => {
    const hooks = await receiver();
    const { id, secret } = await endpoint(api, `${hooks.url}/in`, ['pet.created', 'pet.deleted']);
    const pet = (await api.post('/v1/pets', { name: 'Hooked', categoryId: 2 })).body;
    await api.patch(`/v1/pets/${pet.id}`, { name: 'Not sent' });
    await api.del(`/v1/pets/${pet.id}`);
    const [created, deleted] = await hooks.waitFor(2);
    const first = verified(secret, created!);
    expect(first).toEqual({
      type: 'pet.created', timestamp: new Date(api.clock.now()).toISOString(),
      data: { id: expect.any(Number), occurredAt: new Date(api.clock.now()).toISOString(), kind: 'CREATED', pet },
    });
    expect(verified(secret, deleted!).type).toBe('pet.deleted');
    expect(created!.headers['content-type']).toBe('application/json');
    expect(created!.headers['webhook-id']).toMatch(/^msg_\d+$/);
    // Nothing else: the update is not of its types.
    await api.settle();
    expect(hooks.received).toHaveLength(2);
    // A signature made with another secret does not verify.
    expect(() => verified(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, created!)).toThrow();

    const recorded = await deliveries(api, id);
    expect(recorded.map((d) => [d.type, d.status, d.attempts, d.lastStatusCode])).toEqual([['pet.deleted', 'delivered', 1, 201], ['pet.created', 'delivered', 1, 201]]);
    expect(recorded[1]).toMatchObject({ eventId: first.data.id, lastError: null, nextAttemptAt: null, deliveredAt: expect.any(String) });
    expect(`msg_${recorded[1].id}`).toBe(created!.headers['webhook-id']);
  });

  it('retries a failed delivery on the schedule (the clock moved, not waited for), and a receiver that recovers gets it', async () => {
    const hooks = await receiver();
    hooks.answer(500, { redirect: 'https://example.com/' }, 'hang');
    const { id, secret } = await endpoint(api, hooks.url, ['pet.created']);
    await api.post('/v1/pets', { name: 'Retried', categoryId: 1 });
    await hooks.waitFor(1);
    await eventually(async () => (await deliveries(api, id))[0]?.attempts).toBe(1);
    let [delivery] = await deliveries(api, id);
    expect(delivery).toMatchObject({ status: 'pending', lastStatusCode: 500, lastError: 'answered 500' });
    // Due 5 s later, ±20%: not before 4 s.
    const due = Date.parse(delivery.nextAttemptAt) - api.clock.now();
    expect(due).toBeGreaterThanOrEqual(4_000);
    expect(due).toBeLessThanOrEqual(6_000);
    await api.settle();
    expect(hooks.received).toHaveLength(1);

    // A redirect is not followed: a failure like any other.
    api.clock.advance(6_000);
    await hooks.waitFor(2);
    await eventually(async () => (await deliveries(api, id))[0]?.attempts).toBe(2);
    expect((await deliveries(api, id))[0]).toMatchObject({ status: 'pending', lastStatusCode: 302, lastError: 'answered 302' });

    // A receiver that does not answer is cut at the timeout (1 s here).
    api.clock.advance(40_000);
    await hooks.waitFor(3);
    await eventually(async () => (await deliveries(api, id))[0]?.attempts).toBe(3);
    [delivery] = await deliveries(api, id);
    expect(delivery).toMatchObject({ status: 'pending', lastStatusCode: null, lastError: 'no answer within 1000 ms' });
    expect(delivery.lastDurationMs).toBeGreaterThanOrEqual(1_000);
    expect(delivery.lastDurationMs).toBeLessThan(2_000);

    api.clock.advance(150_000);
    await hooks.waitFor(4);
    await eventually(async () => (await deliveries(api, id))[0]?.status).toBe('delivered');
    // Every attempt carried the same webhook-id, each signed afresh.
    const ids = new Set(hooks.received.map((request) => request.headers['webhook-id']));
    expect(ids.size).toBe(1);
    for (const request of hooks.received) expect(verified(secret, request).type).toBe('pet.created');
  });

  it('sends a test event, and a delivery again on request', async () => {
    const hooks = await receiver();
    const { id, secret } = await endpoint(api, hooks.url, ['order.created']);
    const test = await api.post(`/v1/webhooks/${id}/test`, undefined);
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({ type: 'webhook.test', status: 'pending', eventId: null, attempts: 0 });
    const [sent] = await hooks.waitFor(1);
    expect(verified(secret, sent!)).toMatchObject({ type: 'webhook.test', data: { endpointId: id } });
    await eventually(async () => (await deliveries(api, id))[0]?.status).toBe('delivered');

    const again = await api.gql('mutation($e: SafeInt!, $d: SafeInt!) { redeliverWebhook(endpointId: $e, deliveryId: $d) { id status } }', { e: id, d: test.body.id });
    expect(again.body.data.redeliverWebhook).toEqual({ id: test.body.id, status: 'pending' });
    const [, resent] = await hooks.waitFor(2);
    expect(resent!.headers['webhook-id']).toBe(sent!.headers['webhook-id']);
    await eventually(async () => (await deliveries(api, id))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
    const missing = await api.post(`/v1/webhooks/${id}/deliveries/987654/redeliver`, undefined);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ code: 'NOT_FOUND', status: 404, message: `Delivery 987654 of webhook endpoint ${id} not found` });
  });

  it('disables an endpoint whose delivery fails for good after days of failures, and says why', async () => {
    const hooks = await receiver();
    hooks.answer(503);
    const { id } = await endpoint(api, hooks.url, ['pet.created']);
    await api.post('/v1/pets', { name: 'Never taken', categoryId: 1 });
    await hooks.waitFor(1);
    await eventually(async () => (await deliveries(api, id))[0]?.attempts).toBe(1);
    // As if it had failed every retry since four days ago: the next failure is its last.
    await db.query('UPDATE webhook_deliveries SET attempts = 12 WHERE endpoint_id = ?', [id]);
    await db.query('UPDATE webhook_endpoints SET failing_since = ? WHERE id = ?', [api.clock.now() - 4 * 86_400_000, id]);
    hooks.answer(503);
    api.clock.advance(86_400_000 * 1.3);
    await hooks.waitFor(2);
    await eventually(async () => (await deliveries(api, id))[0]?.status).toBe('failed');
    // The endpoint is disabled by the statement after the one that marks the delivery failed.
    await eventually(async () => (await api.get(`/v1/webhooks/${id}`)).body)
      .toMatchObject({ enabled: false, disabledReason: expect.stringMatching(/^Disabled by the service: no delivery acknowledged since/) });
    // Nothing more is sent to it; enabled again by its owner, it takes the next events.
    await api.post('/v1/pets', { name: 'While disabled', categoryId: 1 });
    expect((await api.patch(`/v1/webhooks/${id}`, { enabled: true })).body).toMatchObject({ enabled: true, disabledReason: null });
    await api.post('/v1/pets', { name: 'Enabled again', categoryId: 1 });
    const [, , next] = await hooks.waitFor(3);
    expect(JSON.parse(next!.body).data.pet.name).toBe('Enabled again');
  });

  it('stops for a revoked key, and moves to the successor of a rolled key', async () => {
    const hooks = await receiver();
    const keys = apiKeyStore(db);
    const owner = await api.newKey('pro');
    await endpoint(api, hooks.url, ['pet.created'], owner.auth);
    const rolled = await rollKey(keys, String(owner.id), 0);
    const successor = { authorization: `Bearer ${rolled!.key}` };
    expect((await api.get('/v1/webhooks', successor)).body).toHaveLength(1);
    await api.post('/v1/pets', { name: 'After the roll', categoryId: 1 });
    expect(JSON.parse((await hooks.waitFor(1))[0]!.body).data.pet.name).toBe('After the roll');

    await revokeKey(keys, String(rolled!.record.id));
    await api.post('/v1/pets', { name: 'After the revocation', categoryId: 1 });
    await api.settle();
    expect(hooks.received).toHaveLength(1);
  });
});

describe('what operators see', () => {
  it('counts deliveries by outcome, the retry queue and the outbox\'s lag in /metrics', async () => {
    const hooks = await receiver();
    hooks.answer(500);
    const { id } = await endpoint(api, hooks.url, ['order.created']);
    const pet = (await api.post('/v1/pets', { name: 'Measured', categoryId: 1 })).body;
    await api.post('/v1/store/orders', { petId: pet.id });
    await hooks.waitFor(1);
    await eventually(async () => (await deliveries(api, id))[0]?.attempts).toBe(1);
    await api.post(`/v1/webhooks/${id}/test`, undefined);
    await hooks.waitFor(2);
    await eventually(async () => (await deliveries(api, id))[0]?.status).toBe('delivered');
    const text = await (await fetch(`${api.url}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1]);
    expect(value('animal_store_webhook_deliveries_total{outcome="retry"}')).toBeGreaterThanOrEqual(1);
    expect(value('animal_store_webhook_deliveries_total{outcome="delivered"}')).toBeGreaterThanOrEqual(1);
    expect(value('animal_store_webhook_pending_deliveries')).toBeGreaterThanOrEqual(1);
    // The retry waits on the test's clock, which stands still: the oldest waiting is as old as that clock says.
    api.clock.advance(5_000);
    const later = await (await fetch(`${api.url}/metrics`)).text();
    expect(seriesValue(later, 'animal_store_webhook_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(5);
    expect(seriesValue(later, 'animal_store_webhook_delivery_duration_seconds_count', { outcome: 'retry' })).toBeGreaterThanOrEqual(1);
    expect(seriesValue(later, 'animal_store_webhook_delivery_duration_seconds_count', { outcome: 'delivered' })).toBeGreaterThanOrEqual(1);
    expect(value('animal_store_outbox_lag_events')).toBe(0);
    expect(value('animal_store_outbox_unsettled_ids')).toBe(0);
  });
});

describe('webhook delivery across instances', () => {
  it('delivers each event to each endpoint once, whichever instance made it', async () => {
    const { a, b, stop } = await startPair(LOOPBACK);
    cleanups.push(stop);
    const hooks = await receiver();
    const other = await receiver();
    await endpoint(a, hooks.url);
    await endpoint(b, other.url, ['pet.created']);
    for (let i = 0; i < 10; i++) await (i % 2 ? a : b).post('/v1/pets', { name: `Both ${i}`, categoryId: 1 });
    await hooks.waitFor(10);
    await other.waitFor(10);
    await Promise.all([a.settle(), b.settle()]);
    expect(hooks.received).toHaveLength(10);
    expect(other.received).toHaveLength(10);
    expect(new Set(hooks.received.map((r) => JSON.parse(r.body).data.pet.name)).size).toBe(10);
  });

  it.runIf(backend === 'mysql')('sends what an instance killed mid-delivery (SIGKILL) had claimed, from another, once the claim lapses', async () => {
    const store = await freshStore();
    cleanups.push(() => store.drop());
    const hooks = await receiver();
    hooks.answer('hang');
    const a = spawnServer({ ...store.env, ...LOOPBACK, WEBHOOK_TIMEOUT_SECONDS: '10', LOG_FORMAT: 'json' });
    cleanups.push(async () => { a.child.kill('SIGKILL'); await a.exited; });
    const url = await listeningUrl(a);
    const headers = await keyOn(store);
    const call = (path: string, body: unknown) => fetch(`${url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const { id } = await (await call('/v1/webhooks', { url: hooks.url, types: ['pet.created'] })).json() as { id: number };
    await call('/v1/pets', { name: 'Claimed by the dead', categoryId: 1 });
    // A has claimed it, and its request hangs: A dies now.
    const [first] = await hooks.waitFor(1);
    a.child.kill('SIGKILL');
    await a.exited;

    const clock = testClock();
    const b = await startServer({ store, clock, env: LOOPBACK });
    cleanups.push(() => b.stop());
    await b.settle();
    expect(hooks.received).toHaveLength(1);
    // The claim lasts the timeout and 20 s.
    clock.advance(31_000);
    const [, second] = await hooks.waitFor(2);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    await eventually(async () => (await b.get(`/v1/webhooks/${id}/deliveries`, headers)).body[0]).toMatchObject({ status: 'delivered', attempts: 1, lastStatusCode: 201 });
  });

  it('sends what a dead instance had claimed once its claim lapses', async () => {
    const hooks = await receiver();
    const { id } = await endpoint(api, hooks.url, ['pet.created']);
    // A delivery claimed by an instance that died before sending it: due only when its claim lapses.
    await db.query('INSERT INTO webhook_deliveries (endpoint_id, event_id, type, payload, status, attempts, next_attempt_at, created_at) VALUES (?, NULL, ?, ?, ?, 0, ?, ?)',
      [id, 'webhook.test', '{"type":"webhook.test"}', 'pending', api.clock.now() + 30_000, api.clock.now()]);
    await api.settle();
    expect(hooks.received).toHaveLength(0);
    api.clock.advance(30_000);
    expect(JSON.parse((await hooks.waitFor(1))[0]!.body).type).toBe('webhook.test');
  });
});

describe('one tenant\'s endpoints against another\'s', () => {
  // A timeout far above every bound below: a delivery that waited for a silent endpoint shows.
  const SLOW = { ...LOOPBACK, WEBHOOK_TIMEOUT_SECONDS: '20' };
  let slow: TestServer;
  let silent: Awaited<ReturnType<typeof silentReceiver>>;
  beforeAll(async () => {
    slow = await startServer({ env: SLOW });
    silent = await silentReceiver();
    // The silent receiver goes first: the server's close then waits for no request.
    cleanups.push(() => slow.close(), () => silent.close());
  });
  const endpointOn = async (url: string, auth: Record<string, string>) => {
    const made = await slow.post('/v1/webhooks', { url }, auth);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body.id as number;
  };

  it('delivers a key\'s events promptly while another key\'s 20 endpoints never answer (and have a backlog)', async () => {
    const quiet = await slow.newKey('pro');
    for (let i = 0; i < 20; i++) await endpointOn(`${silent.url}/${i}`, quiet.auth);
    // A backlog on every silent endpoint: events of the quiet key's own, and test events.
    for (let i = 0; i < 3; i++) await slow.post('/v1/pets', { name: `Unheard ${i}`, categoryId: 1 }, quiet.auth);
    for (const { id } of (await slow.get('/v1/webhooks', quiet.auth)).body) await slow.post(`/v1/webhooks/${id}/test`, undefined, quiet.auth);
    await expect.poll(() => silent.holding, { timeout: 5_000 }).toBeGreaterThanOrEqual(16);

    const hooks = await receiver();
    const healthy = await slow.newKey('pro');
    await endpointOn(hooks.url, healthy.auth);
    for (let i = 0; i < 10; i++) {
      const made = await slow.post('/v1/pets', { name: `Heard ${i}`, categoryId: 1 }, healthy.auth);
      expect(made.status).toBe(201);
      // Far below the 20 s timeout that a delivery waiting behind a silent one would take.
      const heard = await hooks.waitFor(i + 1, 3_000);
      expect(JSON.parse(heard[i]!.body).data.pet.name).toBe(`Heard ${i}`);
    }
    // The silent endpoints still hold their requests: nothing was waited out.
    expect(silent.holding).toBeGreaterThanOrEqual(16);
  });

  it('holds an endpoint to 5 test events and redeliveries waiting: the next is 409 CONFLICT on both surfaces, and costs its point', async () => {
    const own = await silentReceiver();
    cleanups.push(() => own.close());
    const owner = await slow.newKey('pro');
    const id = await endpointOn(own.url, owner.auth);
    await slow.post('/v1/pets', { name: 'For the redelivery', categoryId: 1 }, owner.auth);
    const tests: number[] = [];
    for (let i = 0; i < 5; i++) {
      const test = await slow.post(`/v1/webhooks/${id}/test`, undefined, owner.auth);
      expect(test.status).toBe(202);
      tests.push(test.body.id);
    }
    const message = `Webhook endpoint ${id} has 5 test events and redeliveries waiting to be sent: ask again once one has been attempted (see its deliveries)`;
    const before = Number((await slow.get('/v1/rate_limit', owner.auth)).headers.get('x-ratelimit-remaining'));
    const refused = await slow.post(`/v1/webhooks/${id}/test`, undefined, owner.auth);
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
    expect(refused.body).toEqual({ code: 'CONFLICT', status: 409, message });
    expect(refused.headers.get('x-ratelimit-limit')).toBe('300');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe(String(before - 1));
    expect(refused.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
    expect(refused.headers.get('retry-after')).toBeNull();

    // A redelivery of the event's delivery is a sixth; one of those already waiting is none (left as it is).
    const event = ((await slow.get(`/v1/webhooks/${id}/deliveries`, owner.auth)).body as any[]).find((d) => d.type === 'pet.created');
    const again = await slow.post(`/v1/webhooks/${id}/deliveries/${event.id}/redeliver`, undefined, owner.auth);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ code: 'CONFLICT', status: 409, message });
    const waiting = await slow.post(`/v1/webhooks/${id}/deliveries/${tests[4]}/redeliver`, undefined, owner.auth);
    expect(waiting.status).toBe(202);
    expect(waiting.body).toMatchObject({ id: tests[4], status: 'pending', attempts: 0 });

    for (const [query, variables] of [
      ['mutation($e: SafeInt!) { testWebhookEndpoint(endpointId: $e) { id } }', { e: id }],
      ['mutation($e: SafeInt!, $d: SafeInt!) { redeliverWebhook(endpointId: $e, deliveryId: $d) { id } }', { e: id, d: event.id }],
    ] as const) {
      const gql = await slow.gql(query, variables, owner.auth);
      expect(gql.status).toBe(200);
      expect(gql.headers.get('content-type')).toMatch(/^application\/(graphql-response\+)?json/);
      expect(gql.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(gql.body).toEqual({ data: null, errors: [{ message, path: [expect.any(String)], locations: expect.any(Array), extensions: { code: 'CONFLICT', status: 409 } }] });
    }

    // Once those being sent are cut (attempted, failed), the endpoint takes requests again.
    await expect.poll(() => own.holding, { timeout: 5_000 }).toBe(2);
    own.drop();
    await expect.poll(async () => (await slow.post(`/v1/webhooks/${id}/test`, undefined, owner.auth)).status, { timeout: 5_000, interval: 200 }).toBe(202);
  });
});
