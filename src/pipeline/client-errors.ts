import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { appError, STATUS, type ErrorCode } from '../errors.js';
import { log } from '../log.js';
import { errorBody } from './error-response.js';

/** What Node's HTTP parser reports, as the codes of our error table. */
function refusalFor(code: string | undefined): { code: ErrorCode; message: string } {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'REQUEST_TIMEOUT', message: 'The request was not received in time; send it whole, without pauses' };
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'HEADERS_TOO_LARGE', message: 'The request line and headers are too large' };
    default:
      return { code: 'BAD_REQUEST', message: 'The request is not valid HTTP' };
  }
}

/**
 * A request the HTTP parser refused (malformed, too slow, headers too large) never reaches the
 * pipeline: it gets the Error body here, with a request id in the response and the log, and the
 * connection is closed, as Node itself would close it.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable || socket.bytesWritten > 0) {
    socket.destroy();
    return;
  }
  const { code, message } = refusalFor(error.code);
  refuse(socket, code, message, { parserError: error.code });
}

/**
 * CONNECT asks for a tunnel, which Node hands to a listener of its own instead of the pipeline; without
 * one it would drop the connection unanswered. This server is no proxy: 405, in the Error body.
 */
export function answerConnect(_request: IncomingMessage, socket: Duplex): void {
  refuse(socket as Socket, 'METHOD_NOT_ALLOWED', 'CONNECT is not supported: this server is not a proxy', {}, ['Allow: GET, HEAD, POST, OPTIONS']);
}

function refuse(socket: Socket, code: ErrorCode, message: string, logged: object, extraHeaders: string[] = []): void {
  const status = STATUS[code];
  const requestId = randomUUID();
  const body = JSON.stringify(errorBody(appError(code, message)));
  log.info({ requestId, status, ...logged, client: socket.remoteAddress }, `refused before the pipeline: ${code}`);
  socket.end([
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    `X-Request-Id: ${requestId}`,
    'X-Content-Type-Options: nosniff',
    'Referrer-Policy: no-referrer',
    'Cache-Control: no-store',
    ...extraHeaders,
    '',
    body,
  ].join('\r\n'));
}
