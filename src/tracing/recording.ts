import { trace } from '@opentelemetry/api';

/**
 * Whether the work running now belongs to a sampled request. A span under an unsampled parent is never
 * recorded (the samplers are parent-based), so for the other requests (nine in ten at a ratio of 0.1)
 * the wrappers call straight through instead of making spans that are thrown away.
 */
export const recording = (): boolean => trace.getActiveSpan()?.isRecording() === true;
