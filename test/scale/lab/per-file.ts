import { afterAll, beforeAll } from 'vitest';
import type { EventStream } from '../../support/sse.js';

/**
 * A lab for the tests of one file: started before them, stopped after them together with the instance
 * pairs and event streams they opened (pushed here), streams first.
 */
export function labPerFile<Lab extends { stop(): Promise<void> }>(start: () => Promise<Lab>) {
  const held = { lab: undefined as unknown as Lab, pairs: [] as { stop(): Promise<void> }[], streams: [] as EventStream[] };
  beforeAll(async () => { held.lab = await start(); }, 60_000);
  afterAll(async () => {
    for (const stream of held.streams) stream.close();
    for (const pair of held.pairs) await pair.stop();
    await held.lab?.stop();
  });
  return held;
}
