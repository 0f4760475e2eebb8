import { visit, BREAK, type DocumentNode, type ExecutionResult } from 'graphql';
import { budgetExceeded } from './node-budget.js';

/** A document that asks for incremental delivery: a `@defer` or a `@stream` anywhere in it. Worked out once per document. */
const incremental = new WeakMap<DocumentNode, boolean>();
export function asksForIncrementalDelivery(document: DocumentNode): boolean {
  let found = incremental.get(document);
  if (found === undefined) {
    found = false;
    visit(document, {
      Directive(node) {
        if (node.name.value !== 'defer' && node.name.value !== 'stream') return undefined;
        found = true;
        return BREAK;
      },
    });
    incremental.set(document, found);
  }
  return found;
}

/**
 * Whether the client reads increments: multipart/mixed (Apollo Client, urql) or an event stream. One that
 * does not gets the whole answer at once, its `@defer` and `@stream` ignored, as a router does for it.
 */
export function readsIncrements(context: unknown): boolean {
  const accept = (context as { request?: Request } | undefined)?.request?.headers.get('accept') ?? '';
  return /multipart\/mixed|text\/event-stream/i.test(accept);
}

/** One payload of an incremental answer, in the form the executor sends it (2022-08-24: `incremental` items). */
interface Increment extends ExecutionResult {
  readonly hasNext?: boolean;
  readonly incremental?: readonly (Record<string, unknown> & { errors?: readonly unknown[] })[];
}

/**
 * Every increment counts against the same node limit as the first payload (the deferred fields resolve
 * in the execution's context, so the count goes on): once it is passed, lists stop growing, the payload
 * that passed it carries the limit's error, and the answer ends there (`hasNext: false`).
 */
export function withinNodeLimit(payloads: AsyncIterable<Increment>, context: unknown): AsyncIterable<Increment> {
  return {
    async *[Symbol.asyncIterator]() {
      const iterator = payloads[Symbol.asyncIterator]();
      try {
        for (let read = await iterator.next(); !read.done; read = await iterator.next()) {
          const exceeded = budgetExceeded(context);
          if (!exceeded) {
            yield read.value;
            continue;
          }
          const [first, ...rest] = read.value.incremental ?? [];
          yield first
            ? { ...read.value, incremental: [{ ...first, errors: [...(first.errors ?? []), exceeded] }, ...rest], hasNext: false }
            : { ...read.value, errors: [...(read.value.errors ?? []), exceeded], hasNext: false };
          return;
        }
      } finally {
        await iterator.return?.();
      }
    },
  };
}
