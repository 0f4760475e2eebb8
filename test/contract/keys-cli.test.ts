import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let api: TestServer;
beforeAll(async () => { api = await startServer({ env: { KEY_CACHE_TTL_SECONDS: '1' } }); });
afterAll(async () => { await api?.close(); });

/** The keys command as a script runs it, against the test server's database. */
function keys(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['dist/src/cli/keys.js', ...args], {
      cwd: ROOT, env: { PATH: process.env.PATH, ...api.store.env },
    }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }));
  });
}

describe('npm run keys', () => {
  it('create prints the key as the last line of stdout; it works at once; list shows it without the key or hash', async () => {
    const created = await keys('create', '--plan', 'pro', '--name', 'Mobile app');
    expect(created.code).toBe(0);
    const key = created.stdout.trim().split('\n').at(-1)!;
    expect(key).toMatch(/^ask_[0-9A-Za-z]{49}$/);
    expect(created.stderr).toContain('pro plan: 300/minute, 10000/day');

    const res = await fetch(`${api.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('300');

    const listed = await keys('list', '--json');
    expect(listed.code).toBe(0);
    const row = JSON.parse(listed.stdout).find((k: { name: string }) => k.name === 'Mobile app');
    // Its last use is written off the request's path: there, or about to be.
    const { lastUsed, ...rest } = row;
    expect(rest).toEqual({
      id: expect.any(Number), prefix: key.slice(0, 12), name: 'Mobile app', plan: 'pro', perMinute: 300, perDay: 10_000, scopes: 'all', documents: 'default',
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), expires: null, revoked: null, standing: 'open', deprecatedCalls: 0, lastDeprecatedCall: null,
    });
    expect(lastUsed === null || /^\d{4}-/.test(lastUsed)).toBe(true);
    const table = await keys('list');
    for (const output of [listed.stdout, table.stdout]) {
      expect(output).not.toContain(key);
      expect(output).not.toMatch(/[0-9a-f]{64}/);
    }

    const revoked = await keys('revoke', String(row.id));
    expect(revoked).toMatchObject({ code: 0, stdout: expect.stringContaining(`Revoked key ${row.id}`) });
    expect((await keys('revoke', key)).stdout).toContain('already revoked');
    expect(JSON.parse((await keys('list', '--json')).stdout).find((k: { id: number }) => k.id === row.id).revoked).toMatch(/^\d{4}-/);
    // Still cached for the rest of KEY_CACHE_TTL_SECONDS, then refused.
    expect((await fetch(`${api.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    api.clock.advance(1_000);
    expect((await fetch(`${api.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
  });

  it('create --scopes restricts the key; list shows its scopes; roll keeps them; an unknown scope is a usage error', async () => {
    const created = await keys('create', '--plan', 'free', '--scopes', 'orders:read,pets:read');
    expect(created.code).toBe(0);
    expect(created.stderr).toContain('scopes pets:read orders:read');
    const key = created.stdout.trim().split('\n').at(-1)!;
    const auth = { authorization: `Bearer ${key}` };
    expect((await fetch(`${api.url}/v1/pets`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${api.url}/v1/pets`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' })).status).toBe(403);

    const rolled = await keys('roll', key, '--overlap', '0');
    expect(rolled.code).toBe(0);
    const successor = rolled.stdout.trim().split('\n').at(-1)!;
    const rows = JSON.parse((await keys('list', '--json')).stdout) as { prefix: string; scopes: string }[];
    expect(rows.find((row) => row.prefix === key.slice(0, 12))?.scopes).toBe('pets:read orders:read');
    expect(rows.find((row) => row.prefix === successor.slice(0, 12))?.scopes).toBe('pets:read orders:read');
    const res = await fetch(`${api.url}/v1/store/orders`, { method: 'POST', headers: { authorization: `Bearer ${successor}`, 'content-type': 'application/json' }, body: '{}' });
    expect([res.status, (await res.json()).code]).toEqual([403, 'FORBIDDEN']);

    const unknown = await keys('create', '--plan', 'free', '--scopes', 'pets:read,pets:admin');
    expect([unknown.code, unknown.stdout]).toEqual([2, '']);
    expect(unknown.stderr).toContain('Unknown scope "pets:admin": use pets:read, pets:write, orders:read, orders:write, webhooks');
    const empty = await keys('create', '--plan', 'free', '--scopes', ',');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--scopes needs at least one');
  });

  it('create --documents registered holds the key to the trusted documents; roll keeps it; another value is a usage error', async () => {
    const created = await keys('create', '--plan', 'free', '--documents', 'registered');
    expect(created.code).toBe(0);
    expect(created.stderr).toContain('GraphQL documents: registered');
    const key = created.stdout.trim().split('\n').at(-1)!;
    const text = await fetch(`${api.url}/graphql`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"query":"{ pets { id } }"}',
    });
    expect([text.status, (await text.json()).errors[0].extensions.code]).toEqual([403, 'PERSISTED_DOCUMENT_REQUIRED']);

    const rolled = await keys('roll', key, '--overlap', '0');
    const successor = rolled.stdout.trim().split('\n').at(-1)!;
    const rows = JSON.parse((await keys('list', '--json')).stdout) as { prefix: string; documents: string }[];
    expect(rows.find((row) => row.prefix === successor.slice(0, 12))?.documents).toBe('registered');

    const bad = await keys('create', '--plan', 'free', '--documents', 'some');
    expect([bad.code, bad.stdout]).toEqual([2, '']);
    expect(bad.stderr).toContain('--documents must be any or registered, got "some"');
  });

  it('makes enterprise keys with their own limits', async () => {
    const created = await keys('create', '--plan', 'enterprise', '--per-minute', '7', '--per-day', '70');
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    const res = await fetch(`${api.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.headers.get('x-ratelimit-limit')).toBe('7');
  });

  it.each([
    [['create', '--plan', 'gold'], 2, 'Unknown plan "gold"'],
    [['create'], 2, '--plan is required'],
    [['create', '--plan', 'enterprise', '--per-minute', '5'], 2, '--per-day'],
    [['create', '--plan', 'free', '--per-minute', '5', '--per-day', '9'], 2, 'enterprise plan'],
    [['create', '--plan', 'enterprise', '--per-minute', 'lots', '--per-day', '9'], 2, '--per-minute must be a whole number'],
    [['create', '--plan', 'free', '--color', 'red'], 2, 'color'],
    [['revoke'], 2, 'exactly one'],
    [['revoke', '424242'], 1, 'No key 424242'],
    [['revoke', 'nonsense'], 2, 'id'],
    [['launch'], 2, 'Unknown command'],
  ])('keys %j exits %i: %s', async (args, code, message) => {
    const result = await keys(...args);
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(message);
    expect(result.stdout).not.toMatch(/ask_/);
  });

  it('--help explains every command and exits 0', async () => {
    const help = await keys('--help');
    expect(help.code).toBe(0);
    for (const word of ['create', 'revoke', 'list', '--per-minute', 'Exit codes']) expect(help.stdout).toContain(word);
  });
});

describe('npm run keys in the Docker image', () => {
  it('runs where there are no sources to build (the image holds package.json, node_modules and dist only)', async () => {
    const { copyFileSync, mkdtempSync, rmSync, symlinkSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const image = mkdtempSync(join(tmpdir(), 'image-layout-'));
    try {
      copyFileSync(join(ROOT, 'package.json'), join(image, 'package.json'));
      symlinkSync(join(ROOT, 'node_modules'), join(image, 'node_modules'));
      symlinkSync(join(ROOT, 'dist'), join(image, 'dist'));
      // Without src/ and tsconfig.build.json, a build would fail: the command must not try one.
      const listed = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile('npm', ['run', '--silent', 'keys', '--', 'list', '--json'], { cwd: image, env: { PATH: process.env.PATH, HOME: image, ...api.store.env } },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }));
      });
      expect(listed.stderr).toBe('');
      expect(listed.code).toBe(0);
      expect(Array.isArray(JSON.parse(listed.stdout))).toBe(true);
    } finally {
      rmSync(image, { recursive: true, force: true });
    }
  });
});
