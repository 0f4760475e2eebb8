import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useIdleCollection, type IdleCollection } from '../../src/ops/idle-collection.js';

let collection: IdleCollection | undefined;
beforeEach(() => { vi.useFakeTimers(); });
afterEach(() => {
  collection?.stop();
  vi.useRealTimers();
});

const request = () => collection!.onRequest!({} as never);

describe('the collection when traffic stops', () => {
  it('collects once a busy spell is followed by a quiet interval, and once only', () => {
    const collect = vi.fn();
    collection = useIdleCollection(collect, 1_000);
    request();
    vi.advanceTimersByTime(1_000);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1_000);
    expect(collect).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000);
    expect(collect).toHaveBeenCalledTimes(1);
    // The next busy spell earns the next collection.
    request();
    vi.advanceTimersByTime(2_000);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it('never collects while requests keep coming, nor before any came', () => {
    const collect = vi.fn();
    collection = useIdleCollection(collect, 1_000);
    vi.advanceTimersByTime(5_000);
    for (let i = 0; i < 20; i++) {
      request();
      vi.advanceTimersByTime(500);
    }
    expect(collect).not.toHaveBeenCalled();
  });

  it('by default waits a minute of quiet: a pause between bursts keeps V8\'s compiled code', () => {
    const collect = vi.fn();
    collection = useIdleCollection(collect);
    request();
    vi.advanceTimersByTime(59_000);
    request();
    vi.advanceTimersByTime(60_000);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(60_000);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('does nothing without a collector (node started without --expose-gc)', () => {
    collection = useIdleCollection(undefined, 1_000);
    request();
    expect(() => vi.advanceTimersByTime(5_000)).not.toThrow();
    expect(vi.getTimerCount()).toBe(0);
  });
});
