import { expect } from 'vitest';
import type { TestServer } from './server.js';

/** A new available pet, made over REST. */
export async function newPetOn(server: TestServer, name = 'Orderable') {
  const res = await server.post('/v1/pets', { name, categoryId: 1 });
  expect(res.status).toBe(201);
  return res.body as { id: number; status: string };
}

/** A placed order, for `petId` or for a new pet. */
export async function placedOrderOn(server: TestServer, petId?: number) {
  const id = petId ?? (await newPetOn(server)).id;
  const res = await server.post('/v1/store/orders', { petId: id });
  expect(res.status).toBe(201);
  return res.body as { id: number; petId: number; status: string; placedAt: string };
}
