import type { Step } from './pipeline.js';

/**
 * On every response: no content sniffing, no Referer leaving a page of ours, and no caching of what
 * carries per-key data (anything that has not said how it may be cached: the static assets do).
 * The pages set their own Content-Security-Policy.
 */
export function useSecurityHeaders(): Step {
  return {
    onResponse({ response }) {
      const { headers } = response;
      headers.set('X-Content-Type-Options', 'nosniff');
      headers.set('Referrer-Policy', 'no-referrer');
      if (!headers.has('Cache-Control')) headers.set('Cache-Control', 'no-store');
    },
  };
}
