import { context, trace, type Tracer } from '@opentelemetry/api';
import type { Step } from '../pipeline/pipeline.js';
import { failed } from './outcome.js';
import { recording } from './recording.js';

/** false: the step answered at once (a cached key, no Idempotency-Key to claim), without waiting. */
export const ATTR_WAITED = 'animal_store.waited';

/**
 * A span around a step's request hook, which runs in the span's context: the statements and Redis calls
 * the step waits for are its children. The step itself is untouched (tracing wraps it at assembly). A hook
 * that answered at once still gets its span, marked as not having waited, so that every request of a
 * route has the same tree and a cache hit shows as one.
 */
export function tracedStep(tracer: Tracer, step: Step, name: string): Step {
  const { onRequest } = step;
  if (!onRequest) return step;
  return {
    onRequest(payload) {
      if (!recording()) return onRequest.call(step, payload);
      const span = tracer.startSpan(name);
      let pending: void | Promise<void>;
      try {
        pending = context.with(trace.setSpan(context.active(), span), onRequest, step, payload);
      } catch (error) {
        failed(span, error);
        span.end();
        throw error;
      }
      span.setAttribute(ATTR_WAITED, pending !== undefined);
      if (!pending) {
        span.end();
        return undefined;
      }
      return pending.then(() => span.end(), (error: unknown) => {
        failed(span, error);
        span.end();
        throw error;
      });
    },
    ...(step.onResponse ? { onResponse: step.onResponse.bind(step) } : {}),
  };
}
