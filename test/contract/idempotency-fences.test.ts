import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneFences } from '../../src/db/fence.js';
import { prepared } from '../../src/db/prepared.js';
import { backend, openStore } from '../support/backend.js';
import { rateLimited } from '../support/rate-limited.js';
import { startServer, type TestServer } from '../support/server.js';

/** Where a server keeps its Idempotency-Key records: Redis when it has one, else its database (both on MySQL). */
const RECORD_STORES: [where: string, env: Record<string, string>][] = backend === 'mysql'
  ? [['Redis', {}], ['the database', { REDIS_URL: '' }]]
  : [['the database', {}]];

let n = 0;
const fresh = () => `fence-${Date.now()}-${(n += 1)}`;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A try whose write committed but whose answer was lost (the primary went away as it committed) was
 * answered 503 and its claim released. Here the release is done by hand, behind the server's back: the
 * retry then finds no record, only the fence its first try committed with the write.
 */
describe.each(RECORD_STORES)('a retry after a committed try whose answer was lost (records in %s)', (where, env) => {
  let api: TestServer;
  let db: DataSource;
  let redis: Redis | undefined;
  let owner: { id: number; auth: Record<string, string> };
  beforeAll(async () => {
    api = await startServer({ env });
    db = await openStore(api.store);
    redis = where === 'Redis' ? new Redis(process.env.TEST_REDIS_URL!) : undefined;
    owner = await api.newKey('pro');
  });
  afterAll(async () => {
    redis?.disconnect();
    await db?.destroy();
    await api?.close();
  });

  const recordId = (given: string) => createHash('sha256').update(`${owner.id}\n${given}`).digest('hex');
  /** The claim released, as after a 503: what a retry finds when the first try's answer was lost. */
  const loseAnswer = async (given: string) => {
    const id = recordId(given);
    if (redis) expect(await redis.del(`${api.config.redisPrefix}:idempotency:${id}`)).toBe(1);
    else await db.query('DELETE FROM idempotency_records WHERE id = ?', [id]);
  };
  const count = async (table: string) => Number((await db.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
  const headers = (given: string) => ({ ...owner.auth, 'idempotency-key': given });

  const expectApplied = (reply: { status: number; body: any; headers: Headers }) => {
    expect(reply.status).toBe(409);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_APPLIED', status: 409 });
    expect(reply.body.message).toMatch(/applied/);
    expect(reply.headers.get('idempotent-replayed')).toBeNull();
    rateLimited(reply.headers);
  };

  it('creates no second pet: 409 IDEMPOTENCY_KEY_APPLIED, every time it is asked again', async () => {
    const given = fresh();
    const input = { name: 'Committed once', categoryId: 1 };
    expect((await api.post('/v1/pets', input, headers(given))).status).toBe(201);
    const pets = await count('pets');
    const events = await count('events');
    await loseAnswer(given);
    expectApplied(await api.post('/v1/pets', input, headers(given)));
    expectApplied(await api.post('/v1/pets', input, headers(given)));
    expect(await count('pets')).toBe(pets);
    expect(await count('events')).toBe(events);
  });

  it('places no second order (a transaction, not a batch): 409 IDEMPOTENCY_KEY_APPLIED, not the pet\'s CONFLICT', async () => {
    const pet = (await api.post('/v1/pets', { name: 'Sold once', categoryId: 1 }, owner.auth)).body;
    const given = fresh();
    expect((await api.post('/v1/store/orders', { petId: pet.id }, headers(given))).status).toBe(201);
    const orders = await count('orders');
    await loseAnswer(given);
    expectApplied(await api.post('/v1/store/orders', { petId: pet.id }, headers(given)));
    expect(await count('orders')).toBe(orders);
  });

  it('fences each write of a GraphQL document by its place: what committed is not written again', async () => {
    const holder = (await api.post('/v1/pets', { name: 'Has an order', categoryId: 1 }, owner.auth)).body;
    expect((await api.post('/v1/store/orders', { petId: holder.id }, owner.auth)).status).toBe(201);
    // The first field commits; the second is refused (the pet has an order): the answer has an error, so
    // nothing is kept and the claim is released. Without fences, the retry would create the pet again.
    const document = `mutation { made: createPet(input: { name: "Fenced field", categoryId: 1 }) { id } gone: deletePet(petId: ${holder.id}) { id } }`;
    const given = fresh();
    const pets = await count('pets');
    const first = await api.gql(document, undefined, headers(given));
    expect(first.body.errors.map((e: any) => [e.path[0], e.extensions.code])).toEqual([['gone', 'CONFLICT']]);
    expect(await count('pets')).toBe(pets + 1);

    const again = await api.gql(document, undefined, headers(given));
    expect(again.status).toBe(200);
    expect(again.body.data).toBeNull();
    expect(again.body.errors.map((e: any) => [e.path[0], e.extensions.code])).toEqual([['made', 'IDEMPOTENCY_KEY_APPLIED']]);
    expect(await count('pets')).toBe(pets + 1);
  });

  it('lets the key write again once its fence has passed its day, as a new request', async () => {
    const given = fresh();
    const input = { name: 'A day later', categoryId: 1 };
    const first = await api.post('/v1/pets', input, headers(given));
    await loseAnswer(given);
    api.clock.advance(DAY_MS + 1_000);
    const later = await api.post('/v1/pets', input, headers(given));
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
  });

  it('prunes fences past their time, and only those', async () => {
    const given = fresh();
    await api.post('/v1/pets', { name: 'Pruned fence', categoryId: 1 }, headers(given));
    const mine = `${recordId(given)}.1`;
    const stands = async () => (await db.query('SELECT id FROM idempotency_fences WHERE id = ?', [mine])).length === 1;
    expect(await stands()).toBe(true);
    await pruneFences(prepared(db), api.clock.now());
    expect(await stands()).toBe(true);
    await pruneFences(prepared(db), api.clock.now() + DAY_MS + 1);
    expect(await stands()).toBe(false);
  });
});

/** Records that lapse: a claim whose instance died frees its key within the lease, a live one keeps it. */
describe.each(RECORD_STORES)('an Idempotency-Key claim\'s lease (records in %s)', (where, env) => {
  let api: TestServer;
  let db: DataSource;
  let redis: Redis | undefined;
  let owner: { id: number; auth: Record<string, string> };
  beforeAll(async () => {
    api = await startServer({ env });
    db = await openStore(api.store);
    redis = where === 'Redis' ? new Redis(process.env.TEST_REDIS_URL!) : undefined;
    owner = await api.newKey('pro');
  });
  afterAll(async () => {
    redis?.disconnect();
    await db?.destroy();
    await api?.close();
  });
  const recordId = (given: string) => createHash('sha256').update(`${owner.id}\n${given}`).digest('hex');
  const fingerprint = (path: string, body: unknown) => createHash('sha256').update(JSON.stringify(['POST', path, body])).digest('hex');

  it('frees the key of a request whose instance died within 10 s: 409 IDEMPOTENCY_IN_PROGRESS until then', async () => {
    const given = fresh();
    const body = { name: 'Orphaned', categoryId: 1 };
    const id = recordId(given);
    // The claim a killed instance left: running, no response.
    const claim = JSON.stringify({ fingerprint: fingerprint('/v1/pets', body) });
    if (redis) await redis.set(`${api.config.redisPrefix}:idempotency:${id}`, claim, 'EX', 10);
    else {
      await db.query('INSERT INTO idempotency_records (id, fingerprint, response, expires_at) VALUES (?, ?, NULL, ?)',
        [id, fingerprint('/v1/pets', body), api.clock.now() + 10_000]);
    }
    const busy = await api.post('/v1/pets', body, { ...owner.auth, 'idempotency-key': given });
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect(busy.headers.get('retry-after')).toBe('1');
    if (redis) await redis.pexpire(`${api.config.redisPrefix}:idempotency:${id}`, 1); // its 10 s, passed
    else api.clock.advance(10_001);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await api.post('/v1/pets', body, { ...owner.auth, 'idempotency-key': given })).status).toBe(201);
  });

  it.runIf(backend === 'mysql' && where === 'Redis')('claims for 10 s, renews while the request runs, and keeps the response for a day', async () => {
    const pet = (await api.post('/v1/pets', { name: 'Locked', categoryId: 1 }, owner.auth)).body;
    const given = fresh();
    const key = `${api.config.redisPrefix}:idempotency:${recordId(given)}`;
    // The test holds the pet's row: the mutation waits for it, holding its claim, for 4 s (the statement timeout is 5).
    const runner = db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    await runner.query('SELECT id FROM pets WHERE id = ? FOR UPDATE', [pet.id]);
    const running = api.gql(`mutation { updatePet(petId: ${pet.id}, input: { name: "Renewed" }) { name } }`, undefined, { ...owner.auth, 'idempotency-key': given });
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const early = await redis!.pttl(key);
      expect(early).toBeGreaterThan(8_000);
      expect(early).toBeLessThanOrEqual(10_000);
      await new Promise((resolve) => setTimeout(resolve, 3_300));
      // Without renewal it would be near 6 s by now.
      expect(await redis!.pttl(key)).toBeGreaterThan(8_500);
    } finally {
      await runner.commitTransaction();
      await runner.release();
    }
    const answer = await running;
    expect(answer.body).toEqual({ data: { updatePet: { name: 'Renewed' } } });
    expect(await redis!.ttl(key)).toBeGreaterThan(DAY_MS / 1000 - 60);
  });
});
