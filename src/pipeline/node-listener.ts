import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendNodeResponse } from '@whatwg-node/server';
import { log } from '../log.js';
import type { ServerContext } from './context.js';
import { NodeRequest } from './node-request.js';
import type { Handler } from './pipeline.js';
import { isPlainResponse } from './response.js';

export interface Listener {
  /** node:http's request listener. */
  (req: IncomingMessage, res: ServerResponse): void;
  /** The Fetch API's way in: a Request, answered by the same pipeline. */
  fetch(request: Request): Promise<Response>;
}

let requests = 0;
/** Requests this process has taken so far, on every listener: how the memory trim tells a quiet spell. */
export const requestsSoFar = () => requests;

/** What the client gets when something broke past the pipeline's own error boundary. */
const INTERNAL = JSON.stringify({ code: 'INTERNAL', message: 'Internal error', status: 500 });

/**
 * The pipeline on node:http: each request read where node parsed it (NodeRequest), and each response the
 * service built written with one writeHead and one end. A response with a stream (SSE, multipart, an
 * event feed) is the server adapter's, and whatwg-node pumps it as before.
 */
export function nodeListener(run: Handler, closing: () => boolean = () => false): Listener {
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    requests += 1;
    // In the drain window the answer says `Connection: close`: a kept-alive client (or a balancer's pooled
    // connection) comes back on a new connection, which the balancer no longer sends here.
    if (closing()) res.shouldKeepAlive = false;
    const serverContext = { req, res } as ServerContext;
    let answered: Promise<Response>;
    try {
      answered = Promise.resolve(run(new NodeRequest(req, res) as unknown as Request, serverContext));
    } catch (error) {
      answered = Promise.reject(error);
    }
    answered.then((response) => send(response, req, res)).catch((error: unknown) => failed(error, res, serverContext));
  };
  listener.fetch = async (request: Request) => run(request, {} as ServerContext);
  return listener;
}

function send(response: Response, req: IncomingMessage, res: ServerResponse): unknown {
  if (res.destroyed || res.writableEnded) return undefined;
  if (isPlainResponse(response)) {
    const headers = response.headers.flat();
    if (response.statusText) res.writeHead(response.status, response.statusText, headers);
    else res.writeHead(response.status, headers);
    res.end(response.plainBody ?? undefined);
    return undefined;
  }
  return sendNodeResponse(response, res, req, true);
}

function failed(error: unknown, res: ServerResponse, { requestId }: ServerContext): void {
  log.error({ err: error, requestId }, 'the response could not be written');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(500, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(INTERNAL) });
  res.end(INTERNAL);
}
