import { getHeapStatistics } from 'node:v8';
import { log } from '../log.js';

/** The process used at least this share of a core over a look: it was busy, and its heap may have grown. */
const BUSY = 0.25;
/** ... at most this share: it is quiet now (background work such as the outbox reader stays below it). */
const QUIET = 0.05;

type Gc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

export interface MemoryTrimOptions {
  /** Requests taken so far: a quiet look saw at most one a second (probes, scrapes). */
  readonly requests: () => number;
  /** V8's gc, which the production launch's `--expose-gc` provides; without it the trim does nothing. */
  readonly gc?: Gc | undefined;
}

export interface MemoryTrim {
  stop(): void;
}

/**
 * Gives the heap's free pages back to the system once a busy spell is over. After a burst V8 keeps the
 * heap it grew (the bench's 10k creates left 83-90 MB of heap holding 37-52 MB, 158-174 MB resident),
 * and its own memory reducer, which would shrink it, kept judging a quiet instance's allocation rate high
 * and never ran. So every `seconds` this looks at the process's CPU and requests: after a look at which
 * it was busy, the first look at which it is quiet (little CPU, at most a request a second) runs one
 * memory-reducing collection. That is a pause of 100-300 ms, so it waits for a look with nobody to keep
 * waiting, and it runs once per busy spell. It is off by default: V8 grows the heap back after it through
 * extra collections, which cost the next busy spell a good part of its speed.
 */
export function startMemoryTrim(seconds: number, { requests, gc = (globalThis as { gc?: Gc }).gc }: MemoryTrimOptions): MemoryTrim {
  if (seconds === 0 || !gc) return { stop() {} };
  let lastCpu = process.cpuUsage();
  let lastAt = performance.now();
  let lastRequests = requests();
  let busySinceTrim = false;
  const look = () => {
    const now = performance.now();
    const cpu = process.cpuUsage();
    const share = (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1_000 / (now - lastAt);
    const taken = requests() - lastRequests;
    lastCpu = cpu;
    lastAt = now;
    lastRequests += taken;
    if (share >= BUSY) busySinceTrim = true;
    if (!busySinceTrim || share > QUIET || taken > seconds) return;
    busySinceTrim = false;
    const before = getHeapStatistics().total_heap_size;
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const after = getHeapStatistics().total_heap_size;
    log.info({ heapMbBefore: mb(before), heapMbAfter: mb(after), ms: Math.round(performance.now() - now) },
      'quiet after a busy spell: the heap gave its free pages back');
  };
  const timer = setInterval(look, seconds * 1_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

const mb = (bytes: number) => Math.round(bytes / 104_857.6) / 10;
