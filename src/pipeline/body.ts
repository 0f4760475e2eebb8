import { appError } from '../errors.js';

export const BODY_LIMIT_BYTES = 64 * 1024;

const JSON_ONLY = ['application/json'] as const;

export function isJsonContentType(header: string | null, types: readonly string[] = JSON_ONLY): boolean {
  return types.includes(header?.split(';', 1)[0]?.trim().toLowerCase() ?? '');
}

/** The rest of a refused body is never read: the connection cannot carry another request. */
const CLOSE = { headers: { Connection: 'close' } } as const;

/**
 * Reads a JSON body without ever holding more than the limit: a declared length over it is refused before
 * reading, a chunked body as soon as it passes it.
 */
export async function readJsonBody(request: Request, types: readonly string[] = JSON_ONLY, limit = BODY_LIMIT_BYTES): Promise<unknown> {
  if (!isJsonContentType(request.headers.get('content-type'), types)) {
    throw appError('UNSUPPORTED_MEDIA_TYPE', `The request body must be JSON, sent with Content-Type: ${types.join(' or ')}`, CLOSE);
  }
  const tooLarge = () => appError('PAYLOAD_TOO_LARGE', `The request body must be at most ${limit} bytes`, CLOSE);
  if (Number(request.headers.get('content-length') ?? 0) > limit) throw tooLarge();

  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      size += next.value.byteLength;
      if (size > limit) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(next.value);
    }
  }
  if (size === 0) throw appError('BAD_REQUEST', 'The request body is empty; send a JSON document');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw appError('BAD_REQUEST', 'The request body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw appError('BAD_REQUEST', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}
