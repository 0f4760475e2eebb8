import type { Step } from './pipeline.js';
import { Response } from './response.js';

/** What browser code may read from our responses: the limits, the retry hint, the lifecycle, the id and the validators. */
export const EXPOSED = [
  'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'Deprecation', 'Sunset', 'X-Request-Id', 'Location', 'Link',
  'RateLimit', 'RateLimit-Policy', 'Idempotent-Replayed', 'ETag', 'Cache-Status',
];
/** If-None-Match: a frontend that keeps answers itself asks with their ETag (the browser's own cache needs no preflight). */
const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Request-Id, Idempotency-Key, Last-Event-ID, If-None-Match';

/**
 * CORS for the origins in CORS_ORIGINS. Keys travel in the Authorization header, never in cookies, so
 * credentials are not allowed. A preflight is answered here, before any key is asked for or counted,
 * with the methods of the path it asks about (its route's Allow, worked out at startup): PATCH and
 * DELETE where a record is changed. An unknown path lists none: only the methods a browser sends without
 * asking (GET, HEAD, POST) reach it, to get their 404.
 */
export function useCors(origins: readonly string[]): Step {
  const any = origins.includes('*');
  const allowed = (origin: string | null): origin is string => origin !== null && (any || origins.includes(origin));
  return {
    onRequest({ request, serverContext, endResponse }) {
      if (request.method !== 'OPTIONS' || !request.headers.has('access-control-request-method')) return;
      const origin = request.headers.get('origin');
      const headers: Record<string, string> = { Vary: 'Origin', 'Content-Length': '0' };
      if (allowed(origin)) {
        Object.assign(headers, {
          'Access-Control-Allow-Origin': origin,
          'Access-Control-Allow-Headers': ALLOWED_HEADERS,
          'Access-Control-Max-Age': '600',
        });
        const { allow } = serverContext.route;
        if (allow) headers['Access-Control-Allow-Methods'] = allow;
      }
      // A refused origin still gets a 204: without the Allow headers, the browser stops there.
      endResponse(new Response(null, { status: 204, headers }));
    },
    onResponse({ request, response }) {
      const origin = request.headers.get('origin');
      // The answer depends on the Origin: caches must keep one per origin. Set, never appended: whatwg-node
      // keeps set headers in their plain object and writes them with one writeHead, while an append turns
      // them into a Map that is copied header by header (~4% of a small request's CPU).
      const vary = response.headers.get('vary');
      if (!vary) response.headers.set('vary', 'Origin');
      else if (!/\bOrigin\b/i.test(vary)) response.headers.set('vary', `${vary}, Origin`);
      if (!allowed(origin)) return;
      response.headers.set('Access-Control-Allow-Origin', origin);
      response.headers.set('Access-Control-Expose-Headers', EXPOSED.join(', '));
    },
  };
}
