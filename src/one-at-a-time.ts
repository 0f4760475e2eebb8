/**
 * `work` as a function that runs it one at a time: a call while it runs asks for one more run after it
 * (however many calls came meanwhile) and resolves when that one ends. A failure goes to `failed`, and
 * the next call runs again.
 */
export function oneAtATime(work: () => Promise<void>, failed: (error: unknown) => void, stopped: () => boolean = () => false) {
  let running: Promise<void> | undefined;
  let again = false;
  const run = (): Promise<void> => {
    if (stopped()) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await work();
        } while (again && !stopped());
      } catch (error) {
        failed(error);
      } finally {
        running = undefined;
      }
    })();
    return running;
  };
  /** Resolves when the run under way, if any, ends (without asking for another). */
  const idle = async () => { await running; };
  return Object.assign(run, { idle });
}
