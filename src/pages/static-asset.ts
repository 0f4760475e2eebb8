import { gzipSync } from 'node:zlib';
import { Response } from '../pipeline/response.js';

/**
 * A fixed response body served from memory. Compressed on first demand, once: the GraphiQL page is
 * 9 MB as text and about 2 MB gzipped, and most clients accept gzip.
 */
export function staticAsset(
  body: string | Buffer, contentType: string, cacheControl = 'no-cache', extraHeaders: Record<string, string> = {},
) {
  const raw = new Uint8Array(typeof body === 'string' ? Buffer.from(body) : body);
  let gzipped: Uint8Array<ArrayBuffer> | undefined;
  return (request: Request): Response => {
    const headers: Record<string, string> = {
      'content-type': contentType, 'cache-control': cacheControl, vary: 'Accept-Encoding', ...extraHeaders,
    };
    if (!/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) return new Response(raw, { headers });
    gzipped ??= new Uint8Array(gzipSync(raw));
    return new Response(gzipped, { headers: { ...headers, 'content-encoding': 'gzip' } });
  };
}
