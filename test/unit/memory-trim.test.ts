import { afterEach, describe, expect, it, vi } from 'vitest';
import { startMemoryTrim, type MemoryTrim } from '../../src/ops/memory-trim.js';

/** Keeps this process on its core for `ms`: a busy spell as the trim's CPU look sees one. */
function burn(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* busy */ }
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('memory trim', () => {
  let trim: MemoryTrim | undefined;
  let requests = 0;
  afterEach(() => { trim?.stop(); requests = 0; });
  const taken = () => requests;

  it('collects once, at the first quiet look after a busy one, and not again while quiet', async () => {
    let collectedAt = 0;
    const gc = vi.fn(() => { collectedAt = performance.now(); });
    trim = startMemoryTrim(1, { requests: taken, gc });
    burn(1_300); // the look due during it runs just after it, and finds a busy second
    const busyEnded = performance.now();
    await vi.waitFor(() => expect(gc).toHaveBeenCalledTimes(1), { timeout: 4_000 });
    // Not at that busy look: at the next one, a second later, which finds a quiet second.
    expect(collectedAt - busyEnded).toBeGreaterThan(800);
    expect(gc).toHaveBeenCalledWith({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    await sleep(2_200);
    expect(gc).toHaveBeenCalledTimes(1);
  });

  it('waits while requests come faster than one a second, however little CPU they take', async () => {
    const gc = vi.fn();
    trim = startMemoryTrim(1, { requests: taken, gc });
    burn(1_300);
    const arriving = setInterval(() => { requests += 1; }, 200);
    try {
      await sleep(2_300);
      expect(gc).not.toHaveBeenCalled();
    } finally {
      clearInterval(arriving);
    }
    // A probe a second is quiet enough.
    await vi.waitFor(() => expect(gc).toHaveBeenCalledTimes(1), { timeout: 3_000 });
  });

  it('never collects a process that was never busy', async () => {
    const gc = vi.fn();
    trim = startMemoryTrim(1, { requests: taken, gc });
    await sleep(2_300);
    expect(gc).not.toHaveBeenCalled();
  });

  it('does nothing when switched off, or without gc', async () => {
    const gc = vi.fn();
    trim = startMemoryTrim(0, { requests: taken, gc });
    burn(1_100);
    await sleep(2_200);
    expect(gc).not.toHaveBeenCalled();
    expect(() => startMemoryTrim(1, { requests: taken, gc: undefined }).stop()).not.toThrow();
  });
});
