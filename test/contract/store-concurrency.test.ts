import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../support/backend.js';
import { startServer, type TestServer } from '../support/server.js';

const redisUrl = process.env.TEST_REDIS_URL;
let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  // Two instances on one database (and, on MySQL, one Redis), as behind a load balancer.
  a = await startServer(redisUrl ? { env: { REDIS_URL: redisUrl } } : {});
  b = await startServer({ store: a.shared.store, clock: a.shared.clock, env: { ...a.shared.env, ...(redisUrl ? { REDIS_URL: redisUrl } : {}) } });
});
afterAll(async () => {
  await b?.stop();
  await a?.close();
});

const pick = <T>(items: readonly T[]) => items[Math.floor(Math.random() * items.length)]!;

describe('the store under concurrency, across two instances', () => {
  it('20 simultaneous orders for one available pet: exactly one 201 and 19 × 409', async () => {
    for (let round = 0; round < 3; round += 1) {
      const pet = (await a.post('/v1/pets', { name: `Wanted ${round}`, categoryId: 1 })).body;
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).post('/v1/store/orders', { petId: pet.id })));
      const statuses = answers.map((r) => r.status).sort();
      expect(statuses).toEqual([201, ...Array(19).fill(409)]);
      for (const refused of answers.filter((r) => r.status === 409)) expect(refused.body.code).toBe('CONFLICT');
      const orders = (await a.gql('query($p: SafeInt!) { pet(petId: $p) { status orders { id } } }', { p: pet.id })).body.data.pet;
      expect(orders).toEqual({ status: 'pending', orders: [{ id: answers.find((r) => r.status === 201)!.body.id }] });
    }
  });

  it('a random mix of concurrent operations keeps every invariant', async () => {
    const pets: number[] = [];
    for (let i = 0; i < 12; i += 1) pets.push((await a.post('/v1/pets', { name: `Mixed ${i}`, categoryId: 1 })).body.id);
    const orders: number[] = [];
    const statuses = ['approved', 'delivered', 'cancelled', 'placed'];
    const answered = new Map<number, number>();
    const operation = async () => {
      const server = pick([a, b]);
      const roll = Math.random();
      let status: number;
      if (roll < 0.4 || orders.length === 0) {
        const res = await server.post('/v1/store/orders', { petId: pick(pets) });
        if (res.status === 201) orders.push(res.body.id);
        status = res.status;
      } else if (roll < 0.85) {
        status = (await server.patch(`/v1/store/orders/${pick(orders)}`, { status: pick(statuses) })).status;
      } else if (roll < 0.95) {
        status = (await server.patch(`/v1/pets/${pick(pets)}`, { name: `Renamed ${Math.random()}` })).status;
      } else {
        status = (await server.del(`/v1/pets/${pick(pets)}`)).status;
      }
      answered.set(status, (answered.get(status) ?? 0) + 1);
    };
    for (let wave = 0; wave < 15; wave += 1) await Promise.all(Array.from({ length: 16 }, operation));
    // Only the answers the rules allow: no 5xx, no lost write.
    expect([...answered.keys()].every((s) => [200, 201, 204, 404, 409].includes(s)), JSON.stringify([...answered])).toBe(true);
    expect(answered.get(201)).toBeGreaterThan(0);

    const db = await openStore(a.store);
    try {
      const rows = async (sql: string) => (await db.query(sql)) as Record<string, unknown>[];
      expect(await rows(`SELECT pet_id FROM orders WHERE status IN ('placed', 'approved') GROUP BY pet_id HAVING COUNT(*) > 1`)).toEqual([]);
      expect(await rows(`SELECT o.id FROM orders o JOIN pets p ON p.id = o.pet_id WHERE o.status = 'delivered' AND p.status <> 'sold'`)).toEqual([]);
      expect(await rows(`SELECT o.id FROM orders o JOIN pets p ON p.id = o.pet_id WHERE o.status IN ('placed', 'approved') AND p.status <> 'pending'`)).toEqual([]);
      // And the converse, for these pets (all created available): each status is its orders' doing.
      const ours = `p.id IN (${pets.join(', ')})`;
      expect(await rows(`SELECT p.id FROM pets p WHERE ${ours} AND p.status = 'pending' AND NOT EXISTS
        (SELECT 1 FROM orders o WHERE o.pet_id = p.id AND o.status IN ('placed', 'approved'))`)).toEqual([]);
      expect(await rows(`SELECT p.id FROM pets p WHERE ${ours} AND p.status = 'available' AND EXISTS
        (SELECT 1 FROM orders o WHERE o.pet_id = p.id AND o.status IN ('placed', 'approved', 'delivered'))`)).toEqual([]);
    } finally {
      await db.destroy();
    }
  });
});
