import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, rollKey } from '../../src/auth/key-admin.js';
import { hashKey } from '../../src/auth/keys.js';
import { apiKeyStore } from '../../src/db/api-keys.js';
import type { DataSource } from 'typeorm';
import { openStore } from '../support/backend.js';
import { rateLimited } from '../support/rate-limited.js';
import { startServer, type TestServer } from '../support/server.js';
import { sleep } from '../support/time.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let api: TestServer;
let admin: DataSource;
const store = () => apiKeyStore(admin);
beforeAll(async () => {
  api = await startServer({ env: { KEY_CACHE_TTL_SECONDS: '1' } });
  admin = await openStore(api.store);
});
afterAll(async () => {
  await admin?.destroy();
  await api?.close();
});

const as = (key: string) => ({ authorization: `Bearer ${key}` });
const keysCli = (...args: string[]) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile(process.execPath, ['dist/src/cli/keys.js', ...args], { cwd: ROOT, env: { PATH: process.env.PATH, ...api.store.env } },
    (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }));
});

describe('keys with a lifecycle', () => {
  it('refuses a key past its expiry with a 401 that says it expired', async () => {
    const { key } = await createKey(store(), { plan: 'free', expiresAt: new Date(api.clock.now() + 3_600_000) });
    expect((await api.get('/v1/pets', as(key))).status).toBe(200);
    api.clock.advance(3_600_000);
    const res = await api.get('/v1/pets', as(key));
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'UNAUTHENTICATED', message: expect.stringMatching(/expired at \d{4}-/) });
    expect(res.headers.get('www-authenticate')).toMatch(/invalid_token/);
    rateLimited(res.headers);
  });

  it('rolls a key: the new one works at once, the old one until the overlap ends', async () => {
    const { key: old, record } = await createKey(store(), { plan: 'pro', name: 'Rolling' });
    expect((await api.get('/v1/pets', as(old))).status).toBe(200);
    const rolled = await rollKey(store(), String(record.id), 600_000, api.clock.now());
    expect(rolled!.record).toMatchObject({ plan: 'pro', name: 'Rolling' });
    expect((await api.get('/v1/pets', as(rolled!.key))).status).toBe(200);
    api.clock.advance(1_500);
    expect((await api.get('/v1/pets', as(old))).status).toBe(200);
    api.clock.advance(600_000);
    const after = await api.get('/v1/pets', as(old));
    expect(after.status).toBe(401);
    expect(after.body.message).toMatch(/expired/);
    expect((await api.get('/v1/pets', as(rolled!.key))).status).toBe(200);
  });

  it('refuses a mistyped key by its checksum, and still takes a key made before checksums', async () => {
    const { key } = await createKey(store(), { plan: 'free' });
    expect(key).toMatch(/^ask_[0-9A-Za-z]{49}$/);
    const last = key.at(-1)!;
    const typo = key.slice(0, -1) + (last === 'a' ? 'b' : 'a');
    const refused = await api.get('/v1/pets', as(typo));
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(/checksum/);
    const legacy = `ask_${'L'.repeat(43)}`;
    await store().create({ hash: hashKey(legacy), prefix: legacy.slice(0, 12), name: 'legacy', plan: 'free', perMinute: null, perDay: null, expiresAt: null, scopes: null, documents: null });
    expect((await api.get('/v1/pets', as(legacy))).status).toBe(200);
  });

  it('records when a key was last used, at most once a minute, off the request path', async () => {
    const { key, record } = await createKey(store(), { plan: 'free' });
    const lastUsed = async () => (await store().findById(record.id))!.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await api.get('/v1/pets', as(key));
    await expect.poll(lastUsed).not.toBeNull();
    const first = (await lastUsed())!.getTime();
    api.clock.advance(30_000);
    await api.get('/v1/pets', as(key));
    // What must NOT happen (a write off the request path) has no event to wait for: it is given 200 ms.
    await sleep(200);
    expect((await lastUsed())!.getTime()).toBe(first);
    api.clock.advance(31_000);
    await api.get('/v1/pets', as(key));
    await expect.poll(async () => (await lastUsed())!.getTime()).toBeGreaterThan(first);
  });

  it('the keys command creates with --expires-in or --expires-at, rolls with --overlap, and lists expiry and last use', async () => {
    const made = await keysCli('create', '--plan', 'free', '--name', 'Temp', '--expires-in', '90d');
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toMatch(/until \d{4}-/);
    const key = made.stdout.trim().split('\n').at(-1)!;
    expect((await api.get('/v1/pets', as(key))).status).toBe(200);
    const at = await keysCli('create', '--plan', 'free', '--expires-at', '2099-01-01T00:00:00Z');
    expect(at.code).toBe(0);
    for (const bad of [['--expires-in', 'soon'], ['--expires-in', '0'], ['--expires-at', '2001-01-01T00:00:00Z'], ['--expires-at', 'tomorrow']]) {
      const res = await keysCli('create', '--plan', 'free', ...bad);
      expect(res.code, bad.join(' ')).toBe(2);
    }
    const rolled = await keysCli('roll', key, '--overlap', '0');
    expect(rolled.code, rolled.stderr).toBe(0);
    const successor = rolled.stdout.trim().split('\n').at(-1)!;
    expect(successor).not.toBe(key);
    api.clock.advance(2_000);
    expect((await api.get('/v1/pets', as(key))).status).toBe(401);
    expect((await api.get('/v1/pets', as(successor))).status).toBe(200);
    const listed = JSON.parse((await keysCli('list', '--json')).stdout) as { name: string; expires: string | null; lastUsed: string | null }[];
    const temps = listed.filter((row) => row.name === 'Temp');
    expect(temps).toHaveLength(2);
    expect(temps.every((row) => row.expires !== null)).toBe(true);
    expect((await keysCli('roll', '999999')).code).toBe(1);
  // Ten CLI runs, each a process that loads the TypeScript sources: seconds each on a loaded machine.
  }, 60_000);

});
