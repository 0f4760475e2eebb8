import { describe, expect, it } from 'vitest';
import { createOutboxReader } from '../../src/events/outbox-reader.js';
import { testClock } from '../support/clock.js';

/** An outbox whose committed ids the test decides, in the order it decides. */
function outbox(start = 0) {
  const committed = new Set<number>();
  return {
    commit: (...ids: number[]) => { for (const id of ids) committed.add(id); },
    source: {
      read: async (after: number, limit: number) => [...committed].filter((id) => id > after).sort((x, y) => x - y).slice(0, limit).map((id) => ({ id })),
      last: async () => start,
    },
  };
}

function reader(start = 0, horizonMs = 10_000) {
  const box = outbox(start);
  const clock = testClock();
  const heard: number[] = [];
  const read = createOutboxReader({ source: box.source, deliver: ({ id }) => heard.push(id), horizonMs, clock });
  return { box, clock, heard, read };
}

describe('the outbox reader', () => {
  it('starts at the newest event: what was there before is not delivered', async () => {
    const { box, heard, read } = reader(5);
    box.commit(1, 2, 3, 4, 5);
    await read.poll();
    expect(heard).toEqual([]);
    box.commit(6);
    await read.poll();
    expect(heard).toEqual([6]);
  });

  it('holds an event above a lower id not yet committed, then delivers both in id order, each once', async () => {
    const { box, heard, read } = reader();
    box.commit(1, 3);
    await read.poll();
    expect(heard).toEqual([1]);
    expect(read.position).toBe(1);
    expect(read.missing).toBe(1);
    await read.poll();
    expect(heard).toEqual([1]);
    box.commit(2, 4);
    await read.poll();
    expect(heard).toEqual([1, 2, 3, 4]);
    expect(read.position).toBe(4);
    expect(read.missing).toBe(0);
  });

  it('gives up on an id missing past the horizon (its transaction rolled back), and not before', async () => {
    const { box, clock, heard, read } = reader(0, 10_000);
    box.commit(1, 3);
    await read.poll();
    clock.advance(9_999);
    await read.poll();
    expect(read.position).toBe(1);
    expect(heard).toEqual([1]);
    clock.advance(1);
    await read.poll();
    expect(read.position).toBe(3);
    expect(heard).toEqual([1, 3]);
    // An id given up on is not delivered if it ever shows up.
    box.commit(2);
    await read.poll();
    expect(heard).toEqual([1, 3]);
  });

  it('pages past a full page of events held above a missing id, then delivers them all in order', async () => {
    const { box, heard, read } = reader();
    box.commit(...Array.from({ length: 1_200 }, (_, i) => i + 2));
    await read.poll();
    expect(heard).toEqual([]);
    expect(read.missing).toBe(1);
    box.commit(1);
    await read.poll();
    expect(heard).toEqual(Array.from({ length: 1_201 }, (_, i) => i + 1));
  });

  it('reads page after page when many events wait, and one read at a time however often it is woken', async () => {
    const { box, heard, read } = reader();
    box.commit(...Array.from({ length: 1_234 }, (_, i) => i + 1));
    await Promise.all([read.poll(), read.poll(), read.poll()]);
    expect(heard).toHaveLength(1_234);
    expect(new Set(heard).size).toBe(1_234);
    expect(read.position).toBe(1_234);
  });

  it('says while its reads fail that what was committed is not known to be settled, and stops saying it once one succeeds', async () => {
    const { box, heard, read } = reader();
    const read0 = box.source.read;
    box.source.read = async () => { throw Object.assign(new Error('No answer from the database within 1500 ms'), { code: 'DEADLINE_EXCEEDED' }); };
    await read.poll();
    expect(read.failing).toBe(true);
    box.commit(1);
    box.source.read = read0;
    await read.poll();
    expect(read.failing).toBe(false);
    expect(heard).toEqual([1]);
  });
});
