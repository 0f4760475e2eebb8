import type { ExecutionResult } from 'graphql-ws';

/**
 * A subscription's results, which give its slot back as soon as the socket is done with them: a client's
 * `complete` calls return() while a next() still waits for an event, and (unlike an async generator's)
 * this return() does not queue behind it.
 */
export function endingWith(results: AsyncIterable<ExecutionResult>, end: () => void): AsyncGenerator<ExecutionResult> {
  const iterator = results[Symbol.asyncIterator]();
  const finish = <T>(value: T): T => { end(); return value; };
  const ending: AsyncGenerator<ExecutionResult> = {
    next: () => iterator.next().then((read) => (read.done ? finish(read) : read), (error: unknown) => finish(Promise.reject(error))),
    return: (value) => finish(iterator.return ? iterator.return(value) : Promise.resolve({ done: true as const, value })),
    throw: (error) => finish(iterator.throw ? iterator.throw(error) : Promise.reject(error)),
    [Symbol.asyncIterator]: () => ending,
  };
  return ending;
}
