import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.js';
import { startPair, startServer, type TestServer } from '../support/server.js';
import { mariadbReplica, type MariadbReplicaLab } from './lab/mariadb-replica.js';

let lab: MariadbReplicaLab;
const stops: (() => Promise<void>)[] = [];
beforeAll(async () => { lab = await mariadbReplica(); }, 60_000);
afterAll(async () => {
  for (const stop of stops) await stop();
  await lab?.stop();
});

const redis = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const MACHINE_MYSQL = process.env.TEST_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/';
/** The response cache off: these tests follow each read to where it goes (one with the cache on is at the end). */
const env = () => ({ DATABASE_URL: lab.primaryUrl, DATABASE_REPLICA_URLS: lab.replicaUrl, REDIS_URL: redis, REPLICA_WAIT_MS: '200', RESPONSE_CACHE_MB: '0' });

/** `animal_store_db_reads_total` by `target reason`, read off /metrics. */
async function reads(api: TestServer): Promise<Record<string, number>> {
  const text = await (await fetch(`${api.url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const [, target, reason, value] of text.matchAll(/^animal_store_db_reads_total\{target="(\w+)",reason="(\w+)"\} (\d+)/gm)) {
    counts[`${target} ${reason}`] = Number(value);
  }
  return counts;
}
const grew = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(Object.entries(after).map(([name, n]) => [name, n - (before[name] ?? 0)]).filter(([, n]) => n !== 0));

const LIMITS = { perMinute: 100_000, perDay: 1_000_000 };
const readyz = async (api: TestServer) => (await call<any>(`${api.url}/readyz`)).body;

describe('MySQL read replicas', () => {
  it('read on the replica; a key reads its own writes on any instance, at once, every time', async () => {
    const pair = await startPair(env());
    stops.push(() => pair.stop());
    const { a, b } = pair;
    expect(await readyz(a)).toMatchObject({ status: 'ready', checks: { replicas: [{ status: 'up', lagSeconds: 0 }] } });

    // A key with no recent write reads on the replica.
    const reader = await a.newKey('enterprise', LIMITS);
    await lab.caughtUp();
    const before = await reads(b);
    expect((await b.get('/v1/pets?limit=5', reader.auth)).status).toBe(200);
    expect(grew(before, await reads(b))).toEqual({ 'replica any': 1 });

    // A key that writes on one instance and reads on the other sees its write, on both surfaces.
    const writer = await a.newKey('enterprise', LIMITS);
    const counted = await reads(b);
    let misses = 0;
    // 40 pets: with the few the other tests add, every pet of the lab fits on one page of 100.
    for (let i = 0; i < 40; i++) {
      const created = await a.post('/v1/pets', { name: `Written ${i}`, categoryId: 1 }, writer.auth);
      expect(created.status).toBe(201);
      const read = i % 2 === 0
        ? (await b.get(`/v1/pets/${created.body.id}`, writer.auth)).body?.name
        : (await b.gql(`{ pet(petId: ${created.body.id}) { name } }`, undefined, writer.auth)).body?.data?.pet?.name;
      if (read !== `Written ${i}`) misses++;
    }
    expect(misses).toBe(0);
    const where = grew(counted, await reads(b));
    // Each read waited on the replica for the write, or read the primary when the replica was not there in time.
    expect((where['replica caught_up'] ?? 0) + (where['primary behind'] ?? 0)).toBe(40);
    expect(where['replica caught_up']).toBeGreaterThan(0);
  });

  it('a replica that stops replicating takes no reads and the instance says so; it takes them again when it resumes', async () => {
    const api = await startServer({ env: env() });
    stops.push(() => api.close());
    await lab.lag(true);
    try {
      await expect.poll(async () => (await readyz(api)).status, { timeout: 5_000 }).toBe('degraded');
      expect((await readyz(api)).checks.replicas).toEqual([expect.objectContaining({ status: 'lagging', problem: 'replication is not running' })]);
      const created = await api.post('/v1/pets', { name: 'While the replica stands still', categoryId: 1 });
      const before = await reads(api);
      const other = await api.newKey('enterprise', LIMITS);
      expect((await api.get(`/v1/pets/${created.body.id}`, other.auth)).body.name).toBe('While the replica stands still');
      expect(grew(before, await reads(api))).toEqual({ 'primary no_replica': 1 });
    } finally {
      await lab.lag(false);
    }
    await expect.poll(async () => (await readyz(api)).status, { timeout: 5_000 }).toBe('ready');
  });

  it('under lag, a key sees its writes on the other instance on both surfaces, while other keys read the replica; a new key works at once', async () => {
    const pair = await startPair({ ...env(), REPLICA_MAX_LAG_SECONDS: '30', READ_YOUR_WRITES_SECONDS: '60' });
    stops.push(() => pair.stop());
    const { a, b } = pair;
    const writer = await a.newKey('enterprise', LIMITS);
    const other = await a.newKey('enterprise', LIMITS);
    // The replica replicates and reports itself up to date, but applies each write 3 s late.
    await lab.delay(3);
    try {
      const before = await reads(b);
      const rest = (await a.post('/v1/pets', { name: 'Lagged REST', categoryId: 1 }, writer.auth)).body;
      const page = await b.get('/v1/pets?limit=100', writer.auth);
      expect(page.status).toBe(200);
      expect(page.body.map((pet: { id: number }) => pet.id)).toContain(rest.id);

      const gql = (await a.gql('mutation { createPet(input: { name: "Lagged GraphQL", categoryId: 1 }) { id } }', undefined, writer.auth)).body.data.createPet;
      const listed = (await b.gql('{ pets(limit: 100) { id } }', undefined, writer.auth)).body.data.pets;
      expect(listed.map((pet: { id: number }) => pet.id)).toContain(gql.id);

      // Another key reads the replica meanwhile, which has neither pet yet.
      const seen = (await b.get('/v1/pets?limit=100', other.auth)).body.map((pet: { id: number }) => pet.id);
      expect(seen).not.toContain(rest.id);
      // The writer's first read waited for the replica and read the primary; the next did not wait.
      expect(grew(before, await reads(b))).toEqual({ 'primary behind': 2, 'replica any': 1 });

      // A key made during the lag works at once on both instances: keys are looked up on the primary.
      const fresh = await a.newKey('enterprise', LIMITS);
      expect((await a.get('/v1/pets?limit=1', fresh.auth)).status).toBe(200);
      expect((await b.get('/v1/pets?limit=1', fresh.auth)).status).toBe(200);
    } finally {
      await lab.delay(0);
    }
  });

  it('only the first read of a key whose write the replica lacks pays the wait', async () => {
    const api = await startServer({ env: { ...env(), REPLICA_MAX_LAG_SECONDS: '30', READ_YOUR_WRITES_SECONDS: '60' } });
    stops.push(() => api.close());
    await lab.delay(3);
    try {
      const key = await api.newKey('enterprise', LIMITS);
      const created = await api.post('/v1/pets', { name: 'Behind', categoryId: 1 }, key.auth);
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        expect((await api.get(`/v1/pets/${created.body.id}`, key.auth)).body.name).toBe('Behind');
        times.push(Date.now() - started);
      }
      expect(times[0]).toBeGreaterThanOrEqual(200);
      expect(Math.max(...times.slice(1))).toBeLessThan(100);
    } finally {
      await lab.delay(0);
    }
  });

  it('a primary that reports no write position sends the writing key\'s reads to the primary', async () => {
    // The machine's MariaDB keeps no binary log, so its writes carry no GTID: a database of the test's own there.
    const admin = await mysql.createConnection({ uri: new URL('/', MACHINE_MYSQL).toString() });
    const name = `animal_store_scale_${randomBytes(3).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
    try {
      const api = await startServer({ env: { ...env(), DATABASE_URL: new URL(`/${name}`, MACHINE_MYSQL).toString() } });
      stops.push(() => api.close());
      const key = await api.newKey('enterprise', LIMITS);
      const created = await api.post('/v1/pets', { name: 'Untracked', categoryId: 1 }, key.auth);
      const before = await reads(api);
      expect((await api.get(`/v1/pets/${created.body.id}`, key.auth)).body.name).toBe('Untracked');
      expect(grew(before, await reads(api))).toEqual({ 'primary recent_write': 1 });
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.end();
    }
  });

  it('a replica killed under reads: every read answered from the primary; the replica takes reads again when it is back', async () => {
    const api = await startServer({ env: env() });
    stops.push(() => api.close());
    const key = await api.newKey('enterprise', LIMITS);
    await lab.killReplica();
    const statuses = new Set<number>();
    for (let i = 0; i < 30; i++) statuses.add((await api.get('/v1/pets?limit=5', key.auth)).status);
    expect(statuses).toEqual(new Set([200]));
    const ready = await call<any>(`${api.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'degraded', checks: { database: 'up', replicas: [{ status: 'down' }] } });
    await lab.startReplica();
    await expect.poll(async () => (await readyz(api)).status, { timeout: 15_000 }).toBe('ready');
    const before = await reads(api);
    expect((await api.get('/v1/pets?limit=5', key.auth)).status).toBe(200);
    expect(grew(before, await reads(api))).toEqual({ 'replica any': 1 });
  });

  it('with the response cache: a miss reads a replica that has what the cache heard of, a hit reads nothing, and a lagging replica never hands the cache an old answer', async () => {
    const pair = await startPair({ ...env(), RESPONSE_CACHE_MB: '32', REPLICA_MAX_LAG_SECONDS: '30', READ_YOUR_WRITES_SECONDS: '60' });
    stops.push(() => pair.stop());
    const { a, b } = pair;
    const writer = await a.newKey('enterprise', LIMITS);
    const reader = await a.newKey('enterprise', LIMITS);
    const created = (await a.post('/v1/pets', { name: 'Cached', categoryId: 1 }, writer.auth)).body;
    await lab.caughtUp();
    // A query of its own (an alias no other test sends), by GraphQL GET: cacheable, and not yet in any cache.
    const alias = `p${randomBytes(3).toString('hex')}`;
    const path = `/graphql?query=${encodeURIComponent(`{ ${alias}: nodes(ids: ["${Buffer.from(`Pet:${created.id}`).toString('base64')}"]) { ... on Pet { name } } }`)}`;
    const nameOf = async (server: TestServer, auth: Record<string, string>) => {
      const res = await call<any>(`${server.url}${path}`, { headers: auth });
      return { name: res.body.data[alias][0].name as string, cache: res.headers.get('cache-status') };
    };
    const before = await reads(b);
    expect((await nameOf(b, reader.auth)).cache).toBe('animal-store; fwd=miss');
    expect((await nameOf(b, reader.auth)).cache).toBe('animal-store; hit');
    // The miss waited for the outbox reader's position on the replica (caught up: at once); the hit read nothing.
    expect(grew(before, await reads(b))).toEqual({ 'replica caught_up': 1 });

    // The replica applies each write 3 s late: a change the cache has heard of is not on the replica yet.
    await lab.delay(3);
    try {
      await a.patch(`/v1/pets/${created.id}`, { name: 'Changed under lag' }, writer.auth);
      // The writer reads its write on the other instance at once; another key within the stream's delay,
      // from the primary (the replica lacks the position), never the replica's older answer.
      expect((await nameOf(b, writer.auth)).name).toBe('Changed under lag');
      await expect.poll(async () => (await nameOf(b, reader.auth)).name, { timeout: 2_000, interval: 50 }).toBe('Changed under lag');
      for (let i = 0; i < 5; i++) expect((await nameOf(b, reader.auth)).name).toBe('Changed under lag');
    } finally {
      await lab.delay(0);
    }
  });
});
