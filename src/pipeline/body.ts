import type { IncomingMessage } from 'node:http';
import { appError, type AppError } from '../errors.js';
import { checkNesting } from './nesting.js';

export const BODY_LIMIT_BYTES = 64 * 1024;

const JSON_ONLY = ['application/json'] as const;

/** Whole bodies only (never `stream: true`), so one decoder serves every request. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

export function isJsonContentType(header: string | null, types: readonly string[] = JSON_ONLY): boolean {
  return types.includes(header?.split(';', 1)[0]?.trim().toLowerCase() ?? '');
}

/** The rest of a refused body is never read: the connection cannot carry another request. */
const CLOSE = { headers: { Connection: 'close' } } as const;

/**
 * Reads a JSON body without ever holding more than the limit: a declared length over it is refused before
 * reading, a chunked body as soon as it passes it. `source` is node:http's request under the Fetch API's
 * one, read directly when there is one: through the web stream over it, reading cost a POST a twentieth
 * of its CPU.
 */
export async function readJsonBody(request: Request, types: readonly string[] = JSON_ONLY, source?: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<unknown> {
  if (!isJsonContentType(request.headers.get('content-type'), types)) {
    throw appError('UNSUPPORTED_MEDIA_TYPE', `The request body must be JSON, sent with Content-Type: ${types.join(' or ')}`, CLOSE);
  }
  const tooLarge = () => appError('PAYLOAD_TOO_LARGE', `The request body must be at most ${limit} bytes`, CLOSE);
  if (Number(request.headers.get('content-length') ?? 0) > limit) throw tooLarge();

  const bytes = source ? await fromNode(source, limit, tooLarge) : await fromWeb(request.body, limit, tooLarge);
  if (bytes.length === 0) throw appError('BAD_REQUEST', 'The request body is empty; send a JSON document');
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw appError('BAD_REQUEST', 'The request body is not valid UTF-8');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw appError('BAD_REQUEST', `The request body is not valid JSON: ${(error as Error).message}`);
  }
  // V8's JSON.parse does not recurse, at any depth; much of what reads the body afterwards does.
  checkNesting(body, 'The request body');
  return body;
}

async function fromWeb(body: ReadableStream<Uint8Array> | null, limit: number, tooLarge: () => AppError): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (body) {
    const reader = body.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      size += next.value.byteLength;
      if (size > limit) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(next.value);
    }
  }
  return Buffer.concat(chunks, size);
}

/** Past the limit it stops reading: the answer goes out with Connection: close, and the rest is never read. */
function fromNode(source: IncomingMessage, limit: number, tooLarge: () => AppError): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      source.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      done();
      source.pause();
      reject(tooLarge());
    };
    const onEnd = () => { done(); resolve(Buffer.concat(chunks, size)); };
    const onError = (error: Error) => { done(); reject(error); };
    // The client went away before the end.
    const onClose = () => { done(); reject(new Error('The request body ended early: the connection closed')); };
    source.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
