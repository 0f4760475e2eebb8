import { log } from './log.js';

/**
 * What startup opened, in the order it opened it, to be closed in the reverse order: by `close()` when
 * the service stops, and at once when startup fails half-way, so nothing it opened stays open (a
 * connection, a timer). Each closer runs once, whatever the one before it did.
 */
export function closerStack() {
  const closers: { name: string; close: () => unknown }[] = [];
  return {
    /** `close` undoes what was just opened; `name` is for the log, should it fail. */
    push(name: string, close: () => unknown): void {
      closers.push({ name, close });
    },
    async closeAll(): Promise<void> {
      for (const { name, close } of closers.splice(0).reverse()) {
        try {
          await close();
        } catch (error) {
          log.warn({ err: error }, `closing ${name} failed`);
        }
      }
    },
  };
}

export type Closers = ReturnType<typeof closerStack>;
