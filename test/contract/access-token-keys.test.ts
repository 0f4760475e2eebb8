import { afterEach, describe, expect, it } from 'vitest';
import { startIssuer, type TestIssuer } from '../support/oidc-issuer.js';
import { startServer, type TestServer } from '../support/server.js';

let issuer: TestIssuer | undefined;
let api: TestServer | undefined;
afterEach(async () => {
  await api?.close();
  await issuer?.close();
  api = undefined;
  issuer = undefined;
});

async function start(options: { issuerDown?: boolean } = {}) {
  issuer = await startIssuer();
  if (options.issuerDown) await issuer.down();
  api = await startServer({ env: { JWT_ISSUERS: issuer.issuer, JWT_AUDIENCE: issuer.audience } });
  return { issuer, api };
}

const read = (api: TestServer, token: string) => fetch(`${api.url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${token}` } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the issuer\'s keys', () => {
  it('rotate: a token signed with a new key is taken after one fetch shared by every request waiting on it', async () => {
    const { issuer, api } = await start();
    expect((await read(api, await issuer.token('app-1', { scope: 'pets:read' }))).status).toBe(200);
    await sleep(5_100); // past the cooldown of the first fetch
    await issuer.rotate();
    const fresh = await issuer.token('app-1', { scope: 'pets:read' });
    const before = issuer.fetches.jwks;
    const answers = await Promise.all(Array.from({ length: 20 }, () => read(api, fresh)));
    expect(answers.map((res) => res.status)).toEqual(Array(20).fill(200));
    expect(issuer.fetches.jwks - before).toBe(1);
  });

  it('a flood of made-up kids costs the provider at most one fetch per 5 s', async () => {
    const { issuer, api } = await start();
    expect((await read(api, await issuer.token('app-1'))).status).toBe(200);
    const before = issuer.fetches.jwks;
    const forged = await Promise.all(Array.from({ length: 200 }, (_, i) => issuer.sign({}, { header: { kid: `made-up-${i}` } })));
    const answers = await Promise.all(forged.map((token) => read(api, token)));
    // Refused, or past the anonymous limit for the address (60 a minute): never let through, never a 5xx.
    expect(answers.every((res) => res.status === 401 || res.status === 429)).toBe(true);
    expect(answers.filter((res) => res.status === 401).length).toBeGreaterThan(0);
    expect(issuer.fetches.jwks - before).toBeLessThanOrEqual(1);
  });

  it('the provider down: the last good keys keep working, an unknown kid is refused at once', async () => {
    const { issuer, api } = await start();
    const known = await issuer.token('app-1');
    expect((await read(api, known)).status).toBe(200);
    const other = await issuer.sign({ sub: 'someone-else' });
    await issuer.rotate();
    const unknown = await issuer.sign({ sub: 'new-key-user' });
    await issuer.down();
    expect((await read(api, other)).status).toBe(200);
    await sleep(5_100);
    const began = performance.now();
    const refused = await read(api, unknown);
    expect(refused.status).toBe(401);
    expect(performance.now() - began).toBeLessThan(1_000);
    await issuer.up();
    await sleep(5_500);
    // Back up: the retry in the background has fetched the keys, the new one among them.
    expect((await read(api, unknown)).status).toBe(200);
  }, 30_000);

  it('starts with the provider down: keys work at once, tokens get 503 until the provider answers', async () => {
    const { issuer, api } = await start({ issuerDown: true });
    const { auth } = await api.newKey('free');
    expect((await fetch(`${api.url}/v1/pets?limit=1`, { headers: auth })).status).toBe(200);
    const token = await issuer.sign({ sub: 'early-user' });
    const waiting = await read(api, token);
    expect(waiting.status).toBe(503);
    expect(waiting.headers.get('retry-after')).toBe('5');
    expect(await waiting.json()).toEqual({ code: 'UNAVAILABLE', message: expect.stringMatching(/keys cannot be fetched/), status: 503 });
    await issuer.up();
    // The fetch is retried every 5 s in the background (a token's request does not fetch again meanwhile).
    await sleep(5_500);
    expect((await read(api, token)).status).toBe(200);
  }, 20_000);
});
