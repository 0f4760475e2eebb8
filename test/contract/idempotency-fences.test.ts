import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pruneFences } from '../../src/db/fence.js';
import { prepared } from '../../src/db/prepared.js';
import { backend } from '../support/backend.js';
import { RECORD_STORES, recordsUnderTest } from '../support/idempotency-records.js';
import { rateLimited } from '../support/rate-limited.js';

let n = 0;
const fresh = () => `fence-${Date.now()}-${(n += 1)}`;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A try whose write committed but whose answer was lost (the primary went away as it committed) was
 * answered 503 and its claim released. Here the release is done by hand, behind the server's back: the
 * retry then finds no record, only the fence its first try committed with the write.
 */
describe.each(RECORD_STORES)('a retry after a committed try whose answer was lost (records in %s)', (where, env) => {
  const under = recordsUnderTest(where, env);

  /** The claim released, as after a 503: what a retry finds when the first try's answer was lost. */
  const loseAnswer = async (given: string) => {
    if (under.redis) expect(await under.redis.del(under.redisKey(given))).toBe(1);
    else await under.db.query('DELETE FROM idempotency_records WHERE id = ?', [under.recordId(given)]);
  };
  const count = async (table: string) => Number((await under.db.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
  const headers = (given: string) => ({ ...under.owner.auth, 'idempotency-key': given });

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
    expect((await under.api.post('/v1/pets', input, headers(given))).status).toBe(201);
    const pets = await count('pets');
    const events = await count('events');
    await loseAnswer(given);
    expectApplied(await under.api.post('/v1/pets', input, headers(given)));
    expectApplied(await under.api.post('/v1/pets', input, headers(given)));
    expect(await count('pets')).toBe(pets);
    expect(await count('events')).toBe(events);
  });

  it('places no second order (a transaction, not a batch): 409 IDEMPOTENCY_KEY_APPLIED, not the pet\'s CONFLICT', async () => {
    const pet = (await under.api.post('/v1/pets', { name: 'Sold once', categoryId: 1 }, under.owner.auth)).body;
    const given = fresh();
    expect((await under.api.post('/v1/store/orders', { petId: pet.id }, headers(given))).status).toBe(201);
    const orders = await count('orders');
    await loseAnswer(given);
    expectApplied(await under.api.post('/v1/store/orders', { petId: pet.id }, headers(given)));
    expect(await count('orders')).toBe(orders);
  });

  it('fences each write of a GraphQL document by its place: what committed is not written again', async () => {
    const holder = (await under.api.post('/v1/pets', { name: 'Has an order', categoryId: 1 }, under.owner.auth)).body;
    expect((await under.api.post('/v1/store/orders', { petId: holder.id }, under.owner.auth)).status).toBe(201);
    // The first field commits; the second is refused (the pet has an order): the answer has an error, so
    // nothing is kept and the claim is released. Without fences, the retry would create the pet again.
    const document = `mutation { made: createPet(input: { name: "Fenced field", categoryId: 1 }) { id } gone: deletePet(petId: ${holder.id}) { id } }`;
    const given = fresh();
    const pets = await count('pets');
    const first = await under.api.gql(document, undefined, headers(given));
    expect(first.body.errors.map((e: any) => [e.path[0], e.extensions.code])).toEqual([['gone', 'CONFLICT']]);
    expect(await count('pets')).toBe(pets + 1);

    const again = await under.api.gql(document, undefined, headers(given));
    expect(again.status).toBe(200);
    expect(again.body.data).toBeNull();
    expect(again.body.errors.map((e: any) => [e.path[0], e.extensions.code])).toEqual([['made', 'IDEMPOTENCY_KEY_APPLIED']]);
    expect(await count('pets')).toBe(pets + 1);
  });

  it('lets the key write again once its fence has passed its day, as a new request', async () => {
    const given = fresh();
    const input = { name: 'A day later', categoryId: 1 };
    const first = await under.api.post('/v1/pets', input, headers(given));
    await loseAnswer(given);
    under.api.clock.advance(DAY_MS + 1_000);
    const later = await under.api.post('/v1/pets', input, headers(given));
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
  });

  it('prunes fences past their time, and only those', async () => {
    const given = fresh();
    await under.api.post('/v1/pets', { name: 'Pruned fence', categoryId: 1 }, headers(given));
    const mine = `${under.recordId(given)}.1`;
    const stands = async () => (await under.db.query('SELECT id FROM idempotency_fences WHERE id = ?', [mine])).length === 1;
    expect(await stands()).toBe(true);
    await pruneFences(prepared(under.db), under.api.clock.now());
    expect(await stands()).toBe(true);
    await pruneFences(prepared(under.db), under.api.clock.now() + DAY_MS + 1);
    expect(await stands()).toBe(false);
  });
});

/** Records that lapse: a claim whose instance died frees its key within the lease, a live one keeps it. */
describe.each(RECORD_STORES)('an Idempotency-Key claim\'s lease (records in %s)', (where, env) => {
  const under = recordsUnderTest(where, env);
  const fingerprint = (path: string, body: unknown) => createHash('sha256').update(JSON.stringify(['POST', path, body])).digest('hex');

  it('frees the key of a request whose instance died within 10 s: 409 IDEMPOTENCY_IN_PROGRESS until then', async () => {
    const given = fresh();
    const body = { name: 'Orphaned', categoryId: 1 };
    const id = under.recordId(given);
    // The claim a killed instance left: running, no response.
    const claim = JSON.stringify({ fingerprint: fingerprint('/v1/pets', body) });
    if (under.redis) await under.redis.set(under.redisKey(given), claim, 'EX', 10);
    else {
      await under.db.query('INSERT INTO idempotency_records (id, fingerprint, response, expires_at) VALUES (?, ?, NULL, ?)',
        [id, fingerprint('/v1/pets', body), under.api.clock.now() + 10_000]);
    }
    const busy = await under.api.post('/v1/pets', body, { ...under.owner.auth, 'idempotency-key': given });
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect(busy.headers.get('retry-after')).toBe('1');
    if (under.redis) await under.redis.pexpire(under.redisKey(given), 1); // its 10 s, passed
    else under.api.clock.advance(10_001);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await under.api.post('/v1/pets', body, { ...under.owner.auth, 'idempotency-key': given })).status).toBe(201);
  });

  it.runIf(backend === 'mysql' && where === 'Redis')('claims for 10 s, renews while the request runs, and keeps the response for a day', async () => {
    const pet = (await under.api.post('/v1/pets', { name: 'Locked', categoryId: 1 }, under.owner.auth)).body;
    const given = fresh();
    const key = under.redisKey(given);
    // The test holds the pet's row: the mutation waits for it, holding its claim, for 4 s (the statement timeout is 5).
    const runner = under.db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    await runner.query('SELECT id FROM pets WHERE id = ? FOR UPDATE', [pet.id]);
    const running = under.api.gql(`mutation { updatePet(petId: ${pet.id}, input: { name: "Renewed" }) { name } }`, undefined, { ...under.owner.auth, 'idempotency-key': given });
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const early = await under.redis!.pttl(key);
      expect(early).toBeGreaterThan(8_000);
      expect(early).toBeLessThanOrEqual(10_000);
      await new Promise((resolve) => setTimeout(resolve, 3_300));
      // Without renewal it would be near 6 s by now.
      expect(await under.redis!.pttl(key)).toBeGreaterThan(8_500);
    } finally {
      await runner.commitTransaction();
      await runner.release();
    }
    const answer = await running;
    expect(answer.body).toEqual({ data: { updatePet: { name: 'Renewed' } } });
    expect(await under.redis!.ttl(key)).toBeGreaterThan(DAY_MS / 1000 - 60);
  });
});
