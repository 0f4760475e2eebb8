import { afterEach, describe, expect, it } from 'vitest';
import type { PetEvent } from '../../src/domain/events.js';
import { isAppError } from '../../src/errors.js';
import { createChangeEvents, type ChangeEventBus } from '../../src/events/change-events.js';

const event = (id: number): PetEvent => ({
  id, type: 'pet.created', occurredAt: 0, kind: 'CREATED', pet: { id, name: `pet ${id}`, categoryId: 1, status: 'available' },
});

/** Lets every pending promise run: what pubsub's queue and the stream's pump do between two publishes. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

let bus: ChangeEventBus | undefined;
afterEach(async () => { await bus?.close(); });

describe('a subscription stream of the in-process bus', () => {
  it('takes hundreds of streams on one topic without a leak warning, each hearing every event', async () => {
    bus = createChangeEvents(undefined, 2);
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const streams = Array.from({ length: 200 }, () => bus!.pets()[Symbol.asyncIterator]());
      const firsts = streams.map((stream) => stream.next());
      await settle();
      bus.pet(event(1));
      const read = await Promise.all(firsts);
      expect(read.every((item) => !item.done && !isAppError(item.value) && item.value.pet.id === 1)).toBe(true);
      await settle();
      expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
      await Promise.all(streams.map((stream) => stream.return?.()));
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('gives a reader that keeps up every event, in order', async () => {
    bus = createChangeEvents(undefined, 2);
    const stream = bus.pets();
    const read: number[] = [];
    const reading = (async () => {
      for await (const item of stream) {
        if (isAppError(item)) throw item;
        read.push(item.pet.id);
        if (read.length === 10) return;
      }
    })();
    for (let id = 1; id <= 10; id++) {
      bus.pet(event(id));
      await settle();
    }
    await reading;
    expect(read).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('holds up to its limit for a slow reader, who then reads them all', async () => {
    bus = createChangeEvents(undefined, 3);
    const stream = bus.pets();
    for (let id = 1; id <= 3; id++) bus.pet(event(id));
    await settle();
    const items = [await stream.next(), await stream.next(), await stream.next()];
    expect(items.map((item) => (item.value as PetEvent).pet.id)).toEqual([1, 2, 3]);
  });

  it('past its limit, drops what it held and ends with a STREAM_OVERFLOW error as its last item', async () => {
    bus = createChangeEvents(undefined, 3);
    const stream = bus.pets();
    for (let id = 1; id <= 50; id++) bus.pet(event(id));
    await settle();
    const last = await stream.next();
    expect(last.done).toBe(false);
    expect(isAppError(last.value)).toBe(true);
    expect(last.value).toMatchObject({
      message: 'This subscription fell more than 3 events behind: it ends here; subscribe again to go on',
      extensions: { code: 'STREAM_OVERFLOW', status: 503 },
    });
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    // Other streams, and streams opened afterwards, go on.
    const fresh = bus.pets();
    bus.pet(event(51));
    await settle();
    expect(((await fresh.next()).value as PetEvent).pet.id).toBe(51);
  });

  it('ends at once when returned, with what it held let go', async () => {
    bus = createChangeEvents(undefined, 5);
    const stream = bus.pets();
    bus.pet(event(1));
    await settle();
    await stream.return!();
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });
});
