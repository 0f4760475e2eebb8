import { promisify } from 'node:util';
import { gunzip as gunzipAsync, gzip as gzipAsync, gzipSync } from 'node:zlib';
import { Response } from '../pipeline/response.js';

const gzip = promisify(gzipAsync);
const gunzip = promisify(gunzipAsync);

const acceptsGzip = (request: Request) => /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');

const headersOf = (contentType: string, cacheControl: string, extraHeaders: Record<string, string>): Record<string, string> => ({
  'content-type': contentType, 'cache-control': cacheControl, vary: 'Accept-Encoding', ...extraHeaders,
});

/** A small fixed response body served from memory, as it is, and gzipped (made on first demand, once). */
export function staticAsset(
  body: string | Buffer, contentType: string, cacheControl = 'no-cache', extraHeaders: Record<string, string> = {},
) {
  const raw = new Uint8Array(typeof body === 'string' ? Buffer.from(body) : body);
  let gzipped: Uint8Array<ArrayBuffer> | undefined;
  return (request: Request): Response => {
    const headers = headersOf(contentType, cacheControl, extraHeaders);
    if (!acceptsGzip(request)) return new Response(raw, { headers });
    gzipped ??= new Uint8Array(gzipSync(raw));
    return new Response(gzipped, { headers: { ...headers, 'content-encoding': 'gzip' } });
  };
}

/**
 * A large fixed body kept only gzipped (GraphiQL's page: 9 MB as text, about 2 MB gzipped; Swagger UI's
 * bundle). Browsers and fetch accept gzip; the rare client that does not (curl without --compressed)
 * gets it unzipped for its request, off the event loop, as the compression itself was.
 */
export async function gzippedAsset(
  body: Uint8Array, contentType: string, cacheControl = 'no-cache', extraHeaders: Record<string, string> = {},
): Promise<(request: Request) => Promise<Response>> {
  const gzipped = new Uint8Array(await gzip(body));
  return async (request) => {
    const headers = headersOf(contentType, cacheControl, extraHeaders);
    if (acceptsGzip(request)) return new Response(gzipped, { headers: { ...headers, 'content-encoding': 'gzip' } });
    return new Response(new Uint8Array(await gunzip(gzipped)), { headers });
  };
}
