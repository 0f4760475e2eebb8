import type { Context } from '@opentelemetry/api';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-node';

/**
 * Passes on the spans of requests only. Background work runs statements outside any request (the outbox
 * read every second, pruning, webhook deliveries): each would be a trace of one SELECT, every second on
 * every instance. The ioredis instrumentation drops such calls itself (requireParentSpan); mysql2's has no
 * such setting, so a span without a parent is kept only when it is a request's own.
 */
export class RequestSpansOnly implements SpanProcessor {
  constructor(private readonly next: SpanProcessor) {}

  onStart(span: Span, parentContext: Context): void {
    this.next.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    if (span.parentSpanContext || span.kind === SpanKind.SERVER) this.next.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }
}
