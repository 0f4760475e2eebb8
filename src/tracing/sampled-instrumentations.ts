import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { MySQL2Instrumentation } from '@opentelemetry/instrumentation-mysql2';
import { recording } from './recording.js';

type Wrapped = (this: unknown, ...args: unknown[]) => unknown;

/** `original` where no sampled request is running, else what the instrumentation made of it. */
function whenRecording(original: Wrapped, traced: Wrapped): Wrapped {
  return function (this: unknown, ...args: unknown[]) {
    return recording() ? traced.apply(this, args) : original.apply(this, args);
  };
}

/**
 * Replaces an instrumentation's private method (hence the cast), failing at startup if a version renamed
 * it; tracing-export.test.ts would show one that changed what it does.
 */
function replace(instrumentation: object, method: string, make: (own: (...args: never[]) => unknown) => unknown): void {
  const target = instrumentation as Record<string, unknown>;
  const own = target[method];
  if (typeof own !== 'function') throw new Error(`${instrumentation.constructor.name} has no ${method} to wrap: see sampled-instrumentations.ts`);
  target[method] = make(own.bind(instrumentation) as (...args: never[]) => unknown);
}

/*
 * The instrumentations make a span for every call that has a parent, sampled or not, and mysql2's masks the
 * statement's text (a regular expression over the SQL) before it even asks: at a sampling ratio of 0.1 that
 * was most of what traces cost. Here a library call made outside a sampled request goes straight to the
 * library. What is recorded stays the same: a span under an unsampled parent is never recorded, and one
 * without a parent is dropped (RequestSpansOnly).
 */

/** mysql2's statements, with any literal masked (`?`); ours pass their values as parameters, never in the text. */
export function sampledMySQL2(): MySQL2Instrumentation {
  const instrumentation = new MySQL2Instrumentation({ maskStatement: true });
  // _patchQuery(format, isPrepared) builds the patch for connection.query or .execute.
  replace(instrumentation, '_patchQuery', (own) => (...builder: unknown[]) => {
    const patch = (own as (...args: unknown[]) => (original: Wrapped) => Wrapped)(...builder);
    return (original: Wrapped) => whenRecording(original, patch(original));
  });
  return instrumentation;
}

/** ioredis's commands, by name only: their arguments are keys and values (a kept idempotent response, among them). */
export function sampledIORedis(): IORedisInstrumentation {
  const instrumentation = new IORedisInstrumentation({ dbStatementSerializer: (command) => command });
  // _traceSendCommand(original, moduleVersion) is the patch of Redis.prototype.sendCommand.
  replace(instrumentation, '_traceSendCommand', (own) => (original: Wrapped, ...rest: unknown[]) =>
    whenRecording(original, (own as (...args: unknown[]) => Wrapped)(original, ...rest)));
  return instrumentation;
}
