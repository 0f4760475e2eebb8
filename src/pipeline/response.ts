import { Response as AdapterResponse } from '@whatwg-node/server';
import { HeaderMap } from './header-map.js';

type PlainBody = string | Uint8Array;

const isPlain = (body: unknown): body is PlainBody | null | undefined =>
  body === null || body === undefined || typeof body === 'string' || body instanceof Uint8Array;

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Every response the service builds itself: a status, a HeaderMap and a body that is already whole (a
 * string or bytes), which the node:http listener writes with one writeHead and one end (node-listener.ts).
 * It reads as a Fetch API Response (text, json, clone, headers) wherever one is expected, without the
 * Web IDL objects and the stream a platform Response carries. A streamed body (SSE, an async iterable)
 * gets the server adapter's own Response instead, which the listener hands to whatwg-node to pump.
 */
class PlainResponse {
  // Assigned unless the constructor returned the adapter's Response instead (a streamed body).
  readonly status!: number;
  readonly statusText!: string;
  readonly headers!: HeaderMap;
  /** The body as built; null for none. */
  readonly plainBody!: PlainBody | null;
  readonly type = 'default';
  readonly url = '';
  readonly redirected = false;
  bodyUsed = false;

  constructor(body?: BodyInit | PlainBody | null, init?: ResponseInit) {
    if (!isPlain(body)) return new AdapterResponse(body, init && { ...init, headers: new HeaderMap(init.headers) }) as unknown as PlainResponse;
    this.status = init?.status ?? 200;
    this.statusText = init?.statusText ?? '';
    this.headers = init?.headers instanceof HeaderMap ? init.headers : new HeaderMap(init?.headers);
    this.plainBody = body ?? null;
    if (this.plainBody !== null) {
      // As a Fetch Response: a text body is text unless said otherwise, and every whole body has its length.
      if (typeof this.plainBody === 'string' && !this.headers.has('content-type')) this.headers.set('content-type', 'text/plain;charset=UTF-8');
      if (!this.headers.has('content-length')) this.headers.set('content-length', String(byteLength(this.plainBody)));
    }
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.plainBody === null) return null;
    return new Blob([this.plainBody as BlobPart]).stream();
  }

  text(): Promise<string> {
    this.bodyUsed = true;
    const body = this.plainBody;
    return Promise.resolve(body === null ? '' : typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    this.bodyUsed = true;
    const body = this.plainBody;
    if (body === null) return new Uint8Array(0);
    return Uint8Array.from(typeof body === 'string' ? Buffer.from(body) : body);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer;
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.bytes()], { type: this.headers.get('content-type') ?? '' });
  }

  formData(): Promise<FormData> {
    return Promise.reject(new TypeError('A response of the service is never form data'));
  }

  clone(): PlainResponse {
    return new PlainResponse(this.plainBody as BodyInit | null, { status: this.status, statusText: this.statusText, headers: new HeaderMap(this.headers) });
  }

  /** The same status and headers (Content-Length included) without the body: a HEAD's answer. */
  withoutBody(): PlainResponse {
    return new PlainResponse(null, { status: this.status, statusText: this.statusText, headers: this.headers });
  }

  static json(data: unknown, init?: ResponseInit): PlainResponse {
    const text = JSON.stringify(data) as string | undefined;
    // As the platform's Response.json: there is no JSON text for undefined (or a function).
    if (text === undefined) throw new TypeError('Response.json: the value is not JSON serializable');
    const headers = init?.headers instanceof HeaderMap ? init.headers : new HeaderMap(init?.headers);
    if (!headers.has('content-type')) headers.set('content-type', JSON_TYPE);
    return new PlainResponse(text, { status: init?.status, statusText: init?.statusText, headers });
  }
}

const byteLength = (body: PlainBody) => (typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);

export const isPlainResponse = (response: unknown): response is PlainResponse => response instanceof PlainResponse;
export type { PlainResponse };

/** Typed as the Fetch API's Response, which it stands for everywhere a response is read. */
export const Response = PlainResponse as unknown as typeof globalThis.Response;
export type Response = globalThis.Response;
