import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { normalizeNodeRequest } from '@whatwg-node/server';

/**
 * node:http's request headers read as the Fetch API's Headers: the same object node parsed (lower-cased
 * names, repeated fields joined as node joins them), nothing copied.
 */
class NodeHeaders implements Headers {
  constructor(private readonly fields: IncomingHttpHeaders) {}

  get(name: string): string | null {
    const value = this.fields[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  has(name: string): boolean {
    return this.fields[name.toLowerCase()] !== undefined;
  }

  getSetCookie(): string[] {
    const value = this.fields['set-cookie'];
    return value === undefined ? [] : [value].flat();
  }

  set(name: string, value: string): void {
    this.fields[name.toLowerCase()] = value;
  }

  append(name: string, value: string): void {
    const had = this.get(name);
    this.set(name, had === null ? value : `${had}, ${value}`);
  }

  delete(name: string): void {
    delete this.fields[name.toLowerCase()];
  }

  forEach(callback: (value: string, name: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const name of Object.keys(this.fields)) callback.call(thisArg, this.get(name)!, name, this);
  }

  *entries(): HeadersIterator<[string, string]> {
    for (const name of Object.keys(this.fields)) yield [name, this.get(name)!];
  }

  *keys(): HeadersIterator<string> {
    yield* Object.keys(this.fields);
  }

  *values(): HeadersIterator<string> {
    for (const name of Object.keys(this.fields)) yield this.get(name)!;
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }
}

/** `http://host/path?query`, as the server adapter builds a request's URL (whatwg-node's buildFullUrl). */
function fullUrl(req: IncomingMessage): string {
  const host = req.headers.host ?? 'localhost';
  return `${(req.socket as { encrypted?: boolean } | null)?.encrypted ? 'https' : 'http'}://${host}${req.url ?? '/'}`;
}

type FetchAPI = Parameters<typeof normalizeNodeRequest>[1];

/**
 * A request that came on node:http, read as the Fetch API's Request by the pipeline (method, url,
 * headers, signal, and the body's text when a step asks): what whatwg-node's adapter builds for every
 * request (a Request, its Headers, an AbortController and three listeners on the response), made only
 * as far as a step reads it. GraphQL, which yoga runs on a whole Fetch Request, gets one (`toFetch`).
 */
export class NodeRequest {
  readonly method: string;
  readonly headers: Headers;
  #url?: string;
  #signal?: AbortSignal;

  constructor(readonly req: IncomingMessage, readonly res: ServerResponse) {
    this.method = req.method ?? 'GET';
    this.headers = new NodeHeaders(req.headers);
  }

  get url(): string {
    return this.#url ??= fullUrl(this.req);
  }

  /** Aborted when the client goes away before its answer is out. */
  get signal(): AbortSignal {
    if (!this.#signal) {
      const controller = new AbortController();
      this.#signal = controller.signal;
      this.res.once('close', () => { if (!this.res.writableFinished) controller.abort(); });
    }
    return this.#signal;
  }

  #body?: ReadableStream<Uint8Array> | null;

  /** One stream over node's request, made when first asked for (a second would read nothing). */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.#body === undefined) {
      this.#body = this.method === 'GET' || this.method === 'HEAD' ? null : Readable.toWeb(this.req) as ReadableStream<Uint8Array>;
    }
    return this.#body;
  }

  async text(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  /** The Fetch API's Request over the same node:http request, as the server adapter would have built it. */
  toFetch(fetchAPI: FetchAPI): Request {
    return normalizeNodeRequest(this.req, fetchAPI, this.res) as Request;
  }
}

/** The request as the Fetch API's Request: itself, or one built over its node:http request. */
export function asFetchRequest(request: Request, fetchAPI: FetchAPI): Request {
  return request instanceof NodeRequest ? request.toFetch(fetchAPI) : request;
}
