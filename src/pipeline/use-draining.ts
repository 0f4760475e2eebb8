import { appError } from '../errors.js';
import type { Step } from './pipeline.js';

/** Seconds a client should wait before retrying, on another instance behind the load balancer. */
export const SHUTDOWN_RETRY_AFTER_SECONDS = 1;

/**
 * While the process shuts down, requests that still arrive on open keep-alive connections are refused
 * at once (503 with Retry-After, and the connection closed) instead of starting work that might be cut.
 * Requests already in flight finish.
 */
export function useDraining(draining: () => boolean): Step {
  return {
    onRequest() {
      if (!draining()) return;
      throw appError('UNAVAILABLE', 'The service is shutting down; retry shortly', {
        headers: { 'Retry-After': String(SHUTDOWN_RETRY_AFTER_SECONDS), Connection: 'close' },
      });
    },
  };
}
