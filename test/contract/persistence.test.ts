import { describe, expect, it } from 'vitest';
import { freshStore } from '../support/backend.js';
import { startServer } from '../support/server.js';

describe('persistence', () => {
  it('keeps pets across a restart on the same store', async () => {
    const store = await freshStore();
    try {
      const first = await startServer({ store });
      const { body: pet } = await first.post('/v1/pets', { name: 'Stays 🐢', categoryId: 8, status: 'pending' });
      await first.stop();

      const second = await startServer({ store });
      expect((await second.get(`/v1/pets/${pet.id}`)).body).toEqual(pet);
      const next = await second.post('/v1/pets', { name: 'Next', categoryId: 8 });
      expect(next.body.id).toBeGreaterThan(pet.id);
      await second.stop();
    } finally {
      await store.drop();
    }
  });
});
