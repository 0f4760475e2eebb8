import { afterAll, beforeAll, expect, it } from 'vitest';
import { realClock } from '../support/clock.js';
import { startIssuer, type TestIssuer } from '../support/oidc-issuer.js';
import { startServer, type TestServer } from '../support/server.js';
import { sleep } from '../support/time.js';
import { wsClient } from '../support/websocket.js';

/** A socket lives no longer than its token: closed at `exp` (no leeway here), whatever the recheck's period. */
let issuer: TestIssuer;
let api: TestServer;
beforeAll(async () => {
  issuer = await startIssuer();
  api = await startServer({
    clock: realClock(),
    env: { JWT_ISSUERS: issuer.issuer, JWT_AUDIENCE: issuer.audience, JWT_CLOCK_LEEWAY_SECONDS: '0', KEY_CACHE_TTL_SECONDS: '30' },
  });
});
afterAll(async () => {
  await api?.close();
  await issuer?.close();
});

const SUBSCRIPTION = 'subscription { petChanged { id } }';

it('a token opens a socket (connectionParams), is held to its scopes there, and the socket closes with 4403 at its exp', async () => {
  const exp = Math.floor(Date.now() / 1000) + 3;
  const token = await issuer.sign({ sub: 'socket-user', scope: 'pets:read', exp });
  const socket = wsClient(api.url, { authorization: `Bearer ${token}` });
  const events = socket.subscribe(SUBSCRIPTION);
  expect(await socket.run('{ rateLimit { plan } }')).toEqual({ data: { rateLimit: { plan: 'free' } } });
  // A refusal is the protocol's `error` message with the errors HTTP would answer; the socket stays open.
  const write = await socket.run('mutation { createPet(input: {name: "No", categoryId: 1}) { id } }');
  expect(write).toEqual({ thrown: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'FORBIDDEN' }) })] });

  const closed = await socket.closes;
  const closedAt = Date.now();
  expect(closed).toEqual({ code: 4403, reason: 'The credentials expired: reconnect with fresh ones' });
  expect(closedAt).toBeGreaterThanOrEqual(exp * 1000 - 5);
  expect(closedAt).toBeLessThanOrEqual(exp * 1000 + 500);
  expect(await events.ends).toEqual({ thrown: expect.objectContaining({ code: 4403 }) });

  // The same token again: refused at connection_init; a fresh one is taken.
  const again = wsClient(api.url, { authorization: `Bearer ${token}` });
  expect(await again.closes).toEqual({ code: 4403, reason: expect.stringMatching(/expired/) });
  await again.dispose();
  const renewed = wsClient(api.url, { authorization: `Bearer ${await issuer.token('app-1', { scope: 'pets:read' })}` });
  expect(await renewed.run('{ rateLimit { plan } }')).toEqual({ data: { rateLimit: { plan: 'free' } } });
  await sleep(10);
  await Promise.all([socket.dispose(), renewed.dispose()]);
});

it('Server-Sent Events take the token as a header', async () => {
  const token = await issuer.token('app-2', { scope: 'pets:read' });
  const res = await fetch(`${api.url}/graphql?query=${encodeURIComponent(SUBSCRIPTION)}`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  await res.body?.cancel();
});
