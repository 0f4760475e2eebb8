import { describe, expect, it } from 'vitest';
import type { ChangeEvent, ChangeEvents, LiveStream, PetEvent } from '../../src/domain/events.js';
import type { EventHistory } from '../../src/events/event-history.js';
import { resumableEvents } from '../../src/events/resumable.js';

const petEvent = (id: number) => ({ id, type: 'pet.updated', occurredAt: 0, kind: 'UPDATED', pet: { id: 1 } }) as unknown as PetEvent;

/** A record of `count` settled pet events, and the page sizes asked of it. */
function history(count: number) {
  const limits: number[] = [];
  const record: EventHistory = {
    position: () => count,
    settled: async () => count,
    async read({ after = 0, upTo, limit }) {
      limits.push(limit);
      return Array.from({ length: Math.max(0, Math.min(upTo, after + limit) - after) }, (_, i) => petEvent(after + i + 1)) as ChangeEvent[];
    },
  };
  return { record, limits };
}

/** Live streams that never hear anything and end when returned. */
const quiet: ChangeEvents = {
  changed: () => {},
  pets: () => {
    let end: () => void = () => {};
    const ended = new Promise<IteratorReturnResult<undefined>>((resolve) => { end = () => resolve({ done: true, value: undefined }); });
    return { ready: Promise.resolve(), next: () => ended, async return() { end(); return { done: true, value: undefined }; }, [Symbol.asyncIterator]() { return this; } } as LiveStream<PetEvent>;
  },
  orders: () => { throw new Error('not used'); },
};

describe('a resumed stream', () => {
  it('reads a small first page, so a client that leaves after a few events costs a few events\' work', async () => {
    const { record, limits } = history(100_000);
    const stream = resumableEvents(quiet, record).pets({ after: 0 });
    await stream.ready;
    const first = await stream.next();
    await stream.return!();
    expect(first.value).toMatchObject({ id: 1 });
    expect(limits).toEqual([10]);
  });

  it('grows its pages as the client reads on, and hands on every event once, in id order', async () => {
    const { record, limits } = history(1_000);
    const stream = resumableEvents(quiet, record).pets({ after: 0 });
    const ids: number[] = [];
    for (let i = 0; i < 1_000; i += 1) ids.push(((await stream.next()).value as PetEvent).id);
    await stream.return!();
    expect(ids).toEqual(Array.from({ length: 1_000 }, (_, i) => i + 1));
    expect(limits.slice(0, 4)).toEqual([10, 40, 160, 200]);
    expect(Math.max(...limits)).toBe(200);
  });
});
